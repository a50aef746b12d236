import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pLimit from "p-limit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createTurnContext,
  PermissionEngine,
  specName,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolCallOutcome,
} from "../../src/index.js";
import { shellToolFactory } from "../../src/handlers/shell/index.js";
import { unifiedExecToolFactory } from "../../src/handlers/exec_command/index.js";
import { fromFactory } from "../handlers/toolHarness.js";

/*
 * Issue 26 "Rules that hold" / security review S9: under deny rules for `rm`, `git push` and
 * `curl`, with mode bypass and full access (the rules are the only guard), every form below
 * is denied (or asked, with nobody to approve) through every shell tool and typed into a bash
 * session, and its victim survives. The same forms run for real without the rules, through
 * `shell` and typed into a session, and each does what it was meant to (the table is not
 * vacuous). Each case has its own directory: a victim file `V`, a `list` naming it, and a git
 * repository whose `git push` reaches a bare remote inside it.
 */

const RULES = ["shell(rm:*)", "shell(git push:*)", "shell(curl:*)"];
type Target = "rm" | "push" | "curl";
type Expect = "deny" | "ask";
interface Form {
  script: string;
  target: Target;
  expect?: Expect;
}

const rm = (script: string, expect?: Expect): Form => ({ script, target: "rm", ...(expect && { expect }) });
const push = (script: string, expect?: Expect): Form => ({ script, target: "push", ...(expect && { expect }) });
const CURL = "curl -s -o DONE file://{D}/V";
const curl = (script: string): Form => ({ script: script.replace("CURL", CURL), target: "curl" });

const FORMS: Form[] = [
  rm("rm V"),
  rm("rm -f -- V"),
  rm("env rm V"),
  rm("env -i rm V"),
  rm("env -u HOME rm V"),
  rm("env -C . rm V"),
  rm("env A=1 rm V"),
  rm("env -S 'rm V'"),
  rm("/usr/bin/env rm V"),
  rm("command rm V"),
  rm("command -p rm V"),
  rm("exec rm V"),
  rm("X=1 rm V"),
  rm("X=1 Y=2 rm V"),
  rm("eval 'rm V'"),
  rm('eval "rm V"'),
  rm('eval "$(echo rm) V"'),
  rm("nice rm V"),
  rm("nice -n 5 rm V"),
  rm("ionice -c 3 rm V"),
  rm("timeout 5 rm V"),
  rm("timeout -s KILL 5 rm V"),
  rm("nohup rm V"),
  rm("stdbuf -o0 rm V"),
  rm("time rm V"),
  rm("time -p rm V"),
  rm("setsid -w rm V"),
  rm("chrt -o 0 rm V"),
  rm("taskset -c 0 rm V"),
  rm("flock L rm V"),
  rm("flock L -c 'rm V'"),
  rm("echo V | xargs rm"),
  rm("xargs -a list rm"),
  rm("xargs -I{} rm {} < list"),
  rm("printf 'V\\0' | xargs -0 rm"),
  rm("echo V | xargs -I{} sh -c 'rm {}'"),
  rm("find . -name V -delete"),
  rm("find . -name V -exec rm {} \\;"),
  rm("find . -name V -exec rm {} +"),
  rm("find . -name V -execdir rm {} \\;"),
  rm("find . -name V -exec sh -c 'rm \"$1\"' _ {} \\;"),
  rm("\\rm V"),
  rm("'rm' V"),
  rm('"r"m V'),
  rm("r\\m V"),
  rm("r\\\nm V"),
  rm("/bin/rm V"),
  rm("/usr/bin/rm V"),
  rm("'/bin/rm' V"),
  rm("../../../../../../../../usr/bin/rm V"),
  rm("echo $(rm V)"),
  rm("echo `rm V`"),
  rm('echo "$(rm V)"'),
  rm("cat <(rm V)"),
  rm("(rm V)"),
  rm("{ rm V; }"),
  rm("f() { rm V; }; f"),
  rm("function f { rm V; }; f"),
  rm("if true; then rm V; fi"),
  rm("for i in 1; do rm V; done"),
  rm("while true; do rm V; break; done"),
  rm("case x in x) rm V;; esac"),
  rm("true && rm V"),
  rm("false || rm V"),
  rm("echo a; rm V"),
  rm("echo a\nrm V"),
  rm("echo a | rm V"),
  rm("! rm V"),
  rm("bash <<EOF\nrm V\nEOF"),
  rm("bash <<'EOF'\nrm V\nEOF"),
  rm("sh <<< 'rm V'"),
  rm("echo 'rm V' | bash"),
  rm("bash -lc 'rm V'"),
  rm("bash -c 'rm V'"),
  rm("sh -c 'rm V'"),
  rm("dash -c 'rm V'"),
  rm("bash -e -o pipefail -c 'rm V'"),
  rm("sh -c \"sh -c 'rm V'\""),
  rm('bash -c "bash -c \\"rm V\\""'),
  rm("env bash -c 'rm V'"),
  rm("nohup sh -c 'rm V'"),
  rm("sudo rm V"),
  rm("sudo -u root rm V"),
  rm("su -c 'rm V'"),
  rm("CMD=rm; $CMD V"),
  rm('CMD=rm; "$CMD" V'),
  rm("x=r; ${x}m V", "ask"),
  rm("{rm,V}", "ask"),
  rm("$'\\x72m' V"),
  rm("exec env nice rm V"),
  rm("timeout 5 env X=1 nice -n 1 rm V"),
  rm("command exec rm V"),
  // Found by a hostile probe after the first table: options ending, code run later, input run.
  rm("bash -c -- 'rm V'"),
  rm("sh -c -- 'rm V'"),
  rm("(trap 'rm V' EXIT)"),
  rm("shopt -s expand_aliases; alias x='rm V'\nx"),
  rm("source /dev/stdin <<< 'rm V'"),
  rm(". <(echo rm V)"),
  rm("bash /dev/stdin <<< 'rm V'"),
  rm("bash <(echo rm V)"),
  // In a terminal session `script` would read the typed lines that follow: give it none.
  rm("script -qc 'rm V' /dev/null < /dev/null"),
  rm("setpriv rm V"),
  rm("prlimit --nofile=100 rm V"),
  rm("git -c 'alias.p=!rm V' p"),
  push("git push"),
  push("git -C . push"),
  push("git -c a.b=c push"),
  push("git --no-pager push"),
  push("git --git-dir=.git push"),
  push("git --work-tree=. push"),
  push("git -C . -c a.b=c --no-pager push"),
  push("env git push"),
  push("timeout 30 git push"),
  push("command git push"),
  push("GIT_X=1 git push"),
  push("bash -c 'git push'"),
  push("echo origin | xargs git push"),
  push("git -c alias.p=push p"),
  curl("CURL"),
  curl("env CURL"),
  curl("timeout 30 CURL"),
  curl("nice CURL"),
  curl("command CURL"),
  curl("exec CURL"),
  curl("/usr/bin/CURL"),
  curl("bash -c 'CURL'"),
  curl("echo $(CURL)"),
  curl("echo file://{D}/V | xargs curl -s -o DONE"),
];

const DENIED = /^denied by policy: rule "shell\((rm|git push|curl):\*\)" forbids this call$/;
const ASKED = "rejected: this call needs approval and no approver is configured";

let root: string;
let template: string;
let serial = 0;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "toolcall-evasions-")));
  // No sudo on the test machine: a stand-in that runs its command (as root already).
  const bin = path.join(root, "bin");
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, "sudo"),
    '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do [ "$1" = -u ] && shift; shift; done\nexec "$@"\n',
  );
  chmodSync(path.join(bin, "sudo"), 0o755);
  vi.stubEnv("SHELL", "/bin/bash");
  template = path.join(root, "template");
  mkdirSync(template);
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: template, stdio: "ignore" });
  };
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  git("config", "push.default", "current");
  git("commit", "-q", "--allow-empty", "-m", "one");
  git("init", "-q", "--bare", "remote.git");
  git("remote", "add", "origin", "remote.git");
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

/** Puts the sudo stand-in first on PATH (runs without the rules only: the judged forms are as written). */
const shim = (): string => `export PATH=${path.join(root, "bin")}:$PATH`;

/** A fresh case directory: the victim, its list, and for `git push` the repository. */
function caseDir(form?: Form): string {
  const dir = path.join(root, `case-${++serial}`);
  if (form === undefined || form.target === "push") cpSync(template, dir, { recursive: true });
  else mkdirSync(dir);
  writeFileSync(path.join(dir, "V"), "victim\n");
  writeFileSync(path.join(dir, "list"), "V\n");
  return dir;
}

/** Did the form do what it was meant to? */
function ran(form: Form, dir: string): boolean {
  switch (form.target) {
    case "rm":
      return !existsSync(path.join(dir, "V"));
    case "curl":
      return existsSync(path.join(dir, "DONE"));
    case "push":
      try {
        execFileSync("git", ["--git-dir", path.join(dir, "remote.git"), "rev-parse", "--verify", "-q", "main"], {
          stdio: "ignore",
        });
        return true;
      } catch {
        return false;
      }
  }
}

const scriptIn = (form: Form, dir: string): string => form.script.replaceAll("{D}", dir);

type Via = "shell" | "shell_command" | "local_shell" | "exec_command" | "shell_call";

/** The item a model would send to run `script` through `via`. */
function item(via: Via, script: string, callId: string): Parameters<ToolCallRuntime["submit"]>[0] {
  switch (via) {
    case "shell":
      return {
        type: "function_call",
        call_id: callId,
        name: "shell",
        arguments: JSON.stringify({ command: ["bash", "-lc", script] }),
      };
    case "shell_command":
      return {
        type: "function_call",
        call_id: callId,
        name: "shell_command",
        arguments: JSON.stringify({ command: script }),
      };
    case "exec_command":
      return {
        type: "function_call",
        call_id: callId,
        name: "exec_command",
        arguments: JSON.stringify({ cmd: script }),
      };
    case "local_shell":
      return {
        type: "local_shell_call",
        id: callId,
        call_id: callId,
        status: "completed",
        action: { type: "exec", command: ["bash", "-c", script] },
      };
    case "shell_call":
      return {
        type: "shell_call",
        id: `sh_${callId}`,
        call_id: callId,
        status: "completed",
        environment: null,
        action: { commands: [script], timeout_ms: null, max_output_length: null },
      };
  }
}

const routers = new Map<string, ToolRouter>();
function routerFor(via: Via): ToolRouter {
  const kind = via === "shell_command" ? "shell_command" : via === "exec_command" ? "unified_exec" : "shell";
  let router = routers.get(kind);
  if (!router) {
    const regs =
      kind === "unified_exec"
        ? fromFactory(unifiedExecToolFactory, { shell: "unified_exec" })
        : fromFactory(shellToolFactory, { shell: kind });
    const builder = new ToolRegistryBuilder();
    for (const { spec, handler, supportsParallel, aliases } of regs) {
      builder.pushSpecWithParallelSupport(spec, supportsParallel).registerHandler(specName(spec), handler);
      for (const alias of aliases ?? []) builder.registerAlias(alias, specName(spec));
    }
    const { specs, registry } = builder.build();
    router = new ToolRouter(registry, specs);
    routers.set(kind, router);
  }
  return router;
}
afterAll(async () => {
  await Promise.all([...routers.values()].map((r) => r.close()));
});

/** One call in its own turn: with the rules under bypass mode, or without any permission engine. */
async function run(via: Via, script: string, dir: string, rules: string[] | undefined): Promise<string> {
  const turn = rules
    ? createTurnContext({ cwd: dir, permissions: new PermissionEngine({ mode: "bypass", deny: rules }) })
    : createTurnContext({ cwd: dir });
  const runtime = new ToolCallRuntime(routerFor(via), turn);
  runtime.submit(item(via, script, `c${++serial}`));
  const [outcome] = await runtime.drainOutcomes();
  return outputText(outcome);
}

/** The text the model reads; for a `shell_call`, its first command's stderr (where a denial goes). */
function outputText(outcome: ToolCallOutcome | undefined): string {
  if (!outcome) throw new Error("no outcome");
  const out = "output" in outcome.item ? outcome.item.output : "";
  if (typeof out === "string") return out;
  const [first] = out as unknown as { stderr?: string }[];
  return first?.stderr ?? JSON.stringify(out);
}

const limit = pLimit(4);

describe("deny rules hold against every wrapper and form (issue 26, S9)", () => {
  it(`the table has at least 80 forms (${FORMS.length})`, () => {
    expect(FORMS.length).toBeGreaterThanOrEqual(80);
  });

  for (const via of ["shell", "shell_command", "local_shell", "exec_command", "shell_call"] as const) {
    it(`through ${via}: each form is denied or asked and its victim survives`, async () => {
      const results = await Promise.all(
        FORMS.map((form) =>
          limit(async () => {
            const dir = caseDir(form);
            const text = await run(via, scriptIn(form, dir), dir, RULES);
            return { script: form.script, expect: form.expect ?? "deny", text, ran: ran(form, dir) };
          }),
        ),
      );
      const wrong = results.filter((r) => r.ran || (r.expect === "deny" ? !DENIED.test(r.text) : r.text !== ASKED));
      expect(wrong).toEqual([]);
    }, 120_000);
  }

  it("without the rules each form runs for real through shell (the table is not vacuous)", async () => {
    const results = await Promise.all(
      FORMS.map((form) =>
        limit(async () => {
          const dir = caseDir(form);
          const text = await run("shell", `${shim()}\n${scriptIn(form, dir)}`, dir, undefined);
          return { script: form.script, ran: ran(form, dir), text };
        }),
      ),
    );
    expect(results.filter((r) => !r.ran)).toEqual([]);
  }, 180_000);
});

describe("typed into a bash session with write_stdin", () => {
  /** Starts `bash` in a terminal session; returns its id. */
  const turnOf = (dir: string, permissions: PermissionEngine | undefined) =>
    createTurnContext(permissions ? { cwd: dir, permissions } : { cwd: dir });

  async function session(router: ToolRouter, dir: string, permissions: PermissionEngine | undefined): Promise<number> {
    const runtime = new ToolCallRuntime(router, turnOf(dir, permissions));
    runtime.submit({
      type: "function_call",
      call_id: `start${++serial}`,
      name: "exec_command",
      arguments: JSON.stringify({ cmd: "bash --norc --noprofile", tty: true, login: false, yield_time_ms: 200 }),
    });
    const outcomes = await runtime.drainOutcomes();
    const text = outputText(outcomes.at(-1));
    const id = /session ID (\d+)/.exec(text)?.[1];
    if (id === undefined) throw new Error(`no session: ${text}`);
    return Number(id);
  }

  async function type(
    router: ToolRouter,
    dir: string,
    permissions: PermissionEngine | undefined,
    id: number,
    chars: string,
  ): Promise<string> {
    const runtime = new ToolCallRuntime(router, turnOf(dir, permissions));
    runtime.submit({
      type: "function_call",
      call_id: `w${++serial}`,
      name: "write_stdin",
      arguments: JSON.stringify({ session_id: id, chars, yield_time_ms: 100 }),
    });
    return outputText((await runtime.drainOutcomes())[0]);
  }

  /** Types `lines` and then a marker, and reads until the marker's output shows (the lines have run). */
  async function typeAndWait(router: ToolRouter, dir: string, id: number, lines: string): Promise<void> {
    const mark = `__done_${++serial}__`;
    // The echoed input shows `__do""ne_N__`, the output `__done_N__`.
    let seen = await type(router, dir, undefined, id, `${lines}\necho ${mark.slice(0, 4)}""${mark.slice(4)}\n`);
    // An empty line is a harmless way to wait for more output (an empty poll waits 5 s).
    for (let i = 0; i < 300 && !seen.includes(mark); i++) seen += await type(router, dir, undefined, id, "\n");
    if (!seen.includes(mark)) throw new Error(`session never printed ${mark}`);
  }

  it("each form typed is denied or asked and nothing runs; without the rules each runs", async () => {
    const router = routerFor("exec_command");
    const denyAll = new PermissionEngine({ mode: "bypass", deny: RULES });
    // Guarded: every form typed into one bash session in one case directory, each answered
    // with a denial before it reaches the terminal; the victims there must all survive.
    const guardDir = caseDir();
    const guarded = await session(router, guardDir, denyAll);
    await typeAndWait(router, guardDir, guarded, `cd ${guardDir}`);
    const wrong: unknown[] = [];
    for (const form of FORMS) {
      const text = await type(router, guardDir, denyAll, guarded, `${scriptIn(form, guardDir)}\n`);
      const held = (form.expect ?? "deny") === "deny" ? DENIED.test(text) : text === ASKED;
      if (!held) wrong.push({ script: form.script, text });
    }
    await typeAndWait(router, guardDir, guarded, "true");
    for (const target of ["rm", "push", "curl"] as const) {
      if (ran({ script: "", target }, guardDir)) wrong.push({ target, ran: "in the guarded session" });
    }

    // Open: the same forms, each in its own case directory, four sessions at a time.
    const sessions = await Promise.all([1, 2, 3, 4].map(() => session(router, guardDir, undefined)));
    await Promise.all(sessions.map((id) => typeAndWait(router, guardDir, id, shim())));
    const queue = [...FORMS];
    await Promise.all(
      sessions.map(async (id) => {
        for (let form = queue.shift(); form !== undefined; form = queue.shift()) {
          const free = caseDir(form);
          // `exec` would replace the session's shell: those forms run in a subshell.
          const script = scriptIn(form, free);
          await typeAndWait(
            router,
            free,
            id,
            `cd ${free}\n${/(^|\s)exec\s/.test(form.script) ? `(${script})` : script}`,
          );
          if (!ran(form, free)) wrong.push({ script: form.script, without: "did not run" });
        }
      }),
    );
    expect(wrong).toEqual([]);
  }, 300_000);
});
