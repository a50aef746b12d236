/**
 * The differential corpus: model output items, one array per model response. Items of one
 * round run together (Codex runs them as one response's calls); a later round sees what an
 * earlier one changed. Paths are relative to the workspace, or `<WS>` for its absolute path.
 */
import { DB_QUESTION } from "../fixtures/userInput.js";

/** The workspace both sides start from. */
export const WORKSPACE_FILES: Record<string, string | Buffer> = {
  "a.txt": "alpha\nbeta\ngamma\n",
  "b.txt": "one\ntwo\n",
  "crlf.txt": "x\r\ny\r\n",
  "dir/c.txt": "inside\n",
  // 1x1 transparent PNG.
  "img.png": Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
  "notimg.png": "not an image\n",
  // 1x1 GIF.
  "img.gif": Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"),
};

let n = 0;
const id = (): string => `call_${String(++n).padStart(2, "0")}`;
const fn = (name: string, args: unknown): Record<string, unknown> => ({
  type: "function_call",
  call_id: id(),
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});
const custom = (name: string, input: string): Record<string, unknown> => ({
  type: "custom_tool_call",
  call_id: id(),
  name,
  input,
});
const exec = (cmd: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  fn("exec_command", { cmd, ...extra });
const patch = (body: string): Record<string, unknown> => custom("apply_patch", `*** Begin Patch\n${body}*** End Patch`);
const session = (cmd: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  exec(cmd, { login: false, yield_time_ms: 2000, ...extra });
const sync = (args: unknown): Record<string, unknown> => fn("test_sync_tool", args);

export const ROUNDS: ReadonlyArray<ReadonlyArray<Record<string, unknown>>> = [
  // Round 1: reads, errors, failed patches (nothing changes).
  [
    exec("echo hi"),
    exec("printf 'a\\nb'"),
    exec("exit 3"),
    exec("echo err >&2"),
    exec("pwd", { workdir: "dir" }),
    exec("pwd", { workdir: "missing-dir" }),
    fn("exec_command", {}),
    fn("exec_command", "not json"),
    fn("exec_command", { cmd: 5 }),
    exec("seq 1 3000", { max_output_tokens: 50 }),
    fn("exec_command", { cmd: "true", frobnicate: 1 }),
    exec("cat a.txt"),
    fn("write_stdin", { session_id: 999_999, chars: "" }),
    fn("write_stdin", {}),
    fn("view_image", { path: "img.png" }),
    fn("view_image", { path: "<WS>/img.png" }),
    fn("view_image", { path: "missing.png" }),
    fn("view_image", { path: "notimg.png" }),
    fn("view_image", { path: "dir" }),
    fn("view_image", {}),
    sync({}),
    sync({ sleep_before_ms: 5, sleep_after_ms: 5 }),
    sync({ barrier: { id: "pair", participants: 2 } }),
    sync({ barrier: { id: "pair", participants: 2 } }),
    sync({ barrier: { id: "zero", participants: 0 } }),
    sync({ barrier: { id: "no-time", participants: 1, timeout_ms: 0 } }),
    sync({ barrier: { id: "typed", participants: "two" } }),
    sync({ frobnicate: true }),
    sync({ wait_for_git_enrichment: true }),
    fn("request_user_input", { questions: [DB_QUESTION] }),
    fn("request_user_input", {}),
    fn("nope", {}),
    custom("nope", "x"),
    fn("shell", { command: ["echo", "x"] }),
    fn("read_file", { file_path: "<WS>/a.txt" }),
    fn("list_dir", { dir_path: "<WS>" }),
    fn("update_plan", { plan: [{ step: "look", status: "in_progress" }] }),
    custom("apply_patch", "*** Begin Patch\n*** End Patch"),
    custom("apply_patch", "hello"),
    custom("apply_patch", ""),
    custom("apply_patch", "*** Begin Patch\n*** Frobnicate File: x.txt\n*** End Patch"),
    custom("apply_patch", "*** Begin Patch\n*** Add File: x.txt\n+x\n"),
    patch("*** Update File: missing.txt\n@@\n-a\n+b\n"),
    patch("*** Delete File: missing.txt\n"),
    patch("*** Update File: a.txt\n@@\n-delta\n+DELTA\n"),
    patch("*** Update File: a.txt\n"),
    patch("*** Update File: a.txt\n@@ nowhere\n-beta\n+BETA\n"),
    patch("*** Update File: a.txt\nbeta\n"),
    patch("*** Update File: a.txt\n@@\nbeta\n"),
    patch("*** Update File: a.txt\n@@ alpha\n"),
    patch("*** Update File: a.txt\n@@\n*** End of File\n"),
    patch("*** Update File: a.txt\n@@\n-alpha\n+ALPHA\nnot a diff line\n"),
    patch("*** Delete File: dir\n"),
    patch("*** Add File: dir\n+x\n"),
    custom("apply_patch", "  *** Begin Patch  \n*** Add File: padded.txt\n+p\n  *** End Patch  "),
  ],
  // Round 2: patches that change the workspace.
  [
    patch("*** Add File: new.txt\n+fresh\n+lines\n"),
    patch("*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n"),
    patch("*** Delete File: b.txt\n"),
    patch("*** Update File: crlf.txt\n*** Move to: moved.txt\n@@\n-x\n+X\n"),
    patch("*** Add File: deep/x/y.txt\n+nested\n"),
    patch("*** Add File: dir/c.txt\n+replaced\n"),
    exec("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: via-shell.txt\n+shell\n*** End Patch\nEOF"),
    patch("*** Add File: partial.txt\n+p\n*** Update File: missing.txt\n@@\n-a\n+b\n"),
  ],
  // Round 3: what the patches left.
  [exec("ls -R | sort; tail -n +1 a.txt new.txt moved.txt deep/x/y.txt dir/c.txt via-shell.txt")],
  // Last, one a round: payloads their tool was not offered in.
  [fn("apply_patch", { input: "*** Begin Patch\n*** Add File: via-function.txt\n+x\n*** End Patch" })],
  [custom("exec_command", "echo hi")],
  // Codex 0.171: escalation parameters, the shell in $0, sessions interrupted with Ctrl-C.
  [
    exec("echo $0"),
    exec("echo login", { login: false }),
    exec("echo esc", { sandbox_permissions: "require_escalated", justification: "why", prefix_rule: ["echo"] }),
    exec("echo plain", { sandbox_permissions: "use_default" }),
    fn("exec_command", { cmd: "true", sandbox_permissions: "always" }),
    fn("exec_command", { cmd: "true", prefix_rule: "echo" }),
    exec("echo clamp", { yield_time_ms: 100_000 }),
    fn("view_image", { path: "img.gif" }),
    fn("update_plan", {
      plan: [
        { step: "a", status: "in_progress" },
        { step: "b", status: "in_progress" },
      ],
    }),
    exec("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\nEOF"),
    exec("cd dir && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: in-dir.txt\n+d\n*** End Patch\nEOF"),
    // Sessions for the next round; `login: false` so the trap is set well within the yield.
    session("sleep 30"),
    session("trap 'echo got INT; exit 7' INT; sleep 30 & wait"),
    session("sleep 30", { tty: true }),
    session("sleep 30"),
    session("sleep 30"),
  ],
  // Ctrl-C waits up to 5 s for the exit (both sides return at the exit): a loaded machine may
  // take longer than the default 250 ms to run a trap and end a group.
  [
    fn("write_stdin", { session_id: "<SESSION:call_78>", chars: "\u0003", yield_time_ms: 5000 }),
    fn("write_stdin", { session_id: "<SESSION:call_79>", chars: "\u0003", yield_time_ms: 5000 }),
    fn("write_stdin", { session_id: "<SESSION:call_80>", chars: "\u0003", yield_time_ms: 5000 }),
    fn("write_stdin", { session_id: "<SESSION:call_81>", chars: "abc" }),
    fn("write_stdin", { session_id: "<SESSION:call_82>", chars: "x\u0003" }),
  ],
  [
    fn("write_stdin", { session_id: "<SESSION:call_78>", chars: "" }),
    fn("write_stdin", { session_id: "<SESSION:call_79>", chars: "\u0003" }),
    exec("cat dir/in-dir.txt"),
  ],
];
