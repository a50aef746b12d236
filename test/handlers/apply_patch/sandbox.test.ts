import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatchToolFactory } from "../../../src/handlers/apply_patch/index.js";
import { PermissionEngine, type ApprovalRequest, type ApprovalDecision } from "../../../src/index.js";
import { createExecEnvironment } from "../../../src/sandbox/index.js";
import { callTool, fromFactory } from "../toolHarness.js";
import { Scratch } from "../../sandbox/helpers.js";

/*
 * apply_patch under a workspace-write environment (DESIGN section 12): every target is checked
 * against the writable roots, with symlinks and `..` resolved, before any byte is written.
 * The workspace lives outside os.tmpdir(), which is itself a writable root.
 */
const tools = fromFactory(applyPatchToolFactory, { applyPatch: "function" });
let base: string;
let work: string;
let outside: string;

const scratch = new Scratch();
beforeEach(async () => {
  base = await scratch.outside("patch");
  work = path.join(base, "work");
  outside = path.join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
});
afterEach(() => scratch.cleanup());

const addFile = (p: string, line = "hello"): string => `*** Begin Patch\n*** Add File: ${p}\n+${line}\n*** End Patch`;

async function patch(
  input: string,
  opts: { approve?: (req: ApprovalRequest) => ApprovalDecision; engine?: boolean; nonInteractive?: boolean } = {},
): Promise<{ text: string; success: boolean; asked: ApprovalRequest[] }> {
  const environment = await createExecEnvironment({ cwd: work, sandbox: { mode: "workspace-write" } });
  const asked: ApprovalRequest[] = [];
  const approve = opts.approve;
  const permissions =
    opts.engine === false
      ? undefined
      : new PermissionEngine({
          mode: "bypass",
          ...(opts.nonInteractive && { nonInteractive: true }),
          ...(approve && {
            approve: async (req: ApprovalRequest) => {
              asked.push(req);
              return approve(req);
            },
          }),
        });
  const out = await callTool(
    tools,
    "apply_patch",
    { input },
    { cwd: work, environment, ...(permissions && { permissions }) },
  );
  return { text: out.text, success: out.success, asked };
}

describe("apply_patch inside the writable roots", () => {
  it("writes inside the workspace, new nested directories included", async () => {
    const out = await patch(addFile("a/b/new.txt"));
    expect(out.success).toBe(true);
    expect(await readFile(path.join(work, "a/b/new.txt"), "utf8")).toBe("hello\n");
  });

  it.each([
    ["a `..` escape", () => "../outside/x.txt"],
    ["an absolute path", () => path.join(outside, "x.txt")],
    ["a directory symlink pointing outside", () => "link/x.txt"],
    ["a dangling file symlink pointing outside", () => "dangling.txt"],
  ])("refuses %s before anything is written", async (_what, target) => {
    await symlink(outside, path.join(work, "link"));
    await symlink(path.join(outside, "x.txt"), path.join(work, "dangling.txt"));
    const p = target();
    // The inside file comes first in the patch: all or nothing, it is not written either.
    const input = `*** Begin Patch\n*** Add File: inside.txt\n+in\n*** Add File: ${p}\n+out\n*** End Patch`;
    const out = await patch(input, { engine: false });
    expect(out).toMatchObject({ success: false, text: `denied by sandbox: ${p} is outside the writable roots` });
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
    expect(existsSync(path.join(work, "inside.txt"))).toBe(false);
  });

  it("refuses an update through a symlink to a file outside, leaving the file as it was", async () => {
    await writeFile(path.join(outside, "secret.txt"), "keep\n");
    await symlink(path.join(outside, "secret.txt"), path.join(work, "s.txt"));
    const input = "*** Begin Patch\n*** Update File: s.txt\n@@\n-keep\n+changed\n*** End Patch";
    const out = await patch(input, { engine: false });
    expect(out.text).toBe("denied by sandbox: s.txt is outside the writable roots");
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("keep\n");
  });

  it("checks a `*** Move to:` destination like any target", async () => {
    await writeFile(path.join(work, "m.txt"), "one\n");
    const input =
      "*** Begin Patch\n*** Update File: m.txt\n*** Move to: ../outside/m.txt\n@@\n-one\n+two\n*** End Patch";
    const out = await patch(input, { engine: false });
    expect(out.text).toBe("denied by sandbox: ../outside/m.txt is outside the writable roots");
    expect(await readFile(path.join(work, "m.txt"), "utf8")).toBe("one\n");
    expect(existsSync(path.join(outside, "m.txt"))).toBe(false);
  });

  it("keeps .git read-only", async () => {
    await mkdir(path.join(work, ".git"));
    const out = await patch(addFile(".git/hooks/pre-commit"), { engine: false });
    expect(out.text).toBe("denied by sandbox: .git/hooks/pre-commit is inside .git, which stays read-only");
  });
});

describe("a write outside the roots asks to escalate (sandbox_escalation)", () => {
  it("writes on a person's allow, even in bypass mode only after asking", async () => {
    const out = await patch(addFile("../outside/x.txt"), { approve: () => ({ decision: "allow" }) });
    expect(out.asked).toHaveLength(1);
    expect(out.asked[0]).toMatchObject({
      kind: "sandbox_escalation",
      toolName: "apply_patch",
      reason: "../outside/x.txt is outside the writable roots; write it anyway?",
      summary: "../outside/x.txt",
    });
    expect(out.success).toBe(true);
    expect(await readFile(path.join(outside, "x.txt"), "utf8")).toBe("hello\n");
  });

  it("keeps the denial on deny", async () => {
    const out = await patch(addFile("../outside/x.txt"), { approve: () => ({ decision: "deny" }) });
    expect(out.asked).toHaveLength(1);
    expect(out.text).toBe("denied by sandbox: ../outside/x.txt is outside the writable roots");
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
  });

  it("is denied when nobody can answer (a non-interactive session)", async () => {
    const out = await patch(addFile("../outside/x.txt"), { nonInteractive: true });
    expect(out.text).toBe("denied by sandbox: ../outside/x.txt is outside the writable roots");
    expect(existsSync(path.join(outside, "x.txt"))).toBe(false);
  });
});

describe("accept_edits and the sandbox's roots", () => {
  it("lets accept_edits edit an extra writable root without asking", async () => {
    const environment = await createExecEnvironment({
      cwd: work,
      sandbox: { mode: "workspace-write", writableRoots: [outside] },
    });
    const permissions = new PermissionEngine({ mode: "accept_edits", nonInteractive: true });
    const input = addFile(path.join(outside, "x.txt"));
    const out = await callTool(tools, "apply_patch", { input }, { cwd: work, environment, permissions });
    expect(out.success).toBe(true);
    expect(await readFile(path.join(outside, "x.txt"), "utf8")).toBe("hello\n");
  });
});
