/**
 * Scenario: the policy stage's judgement of a 100-call batch of allowed `shell` calls under 20
 * rules (the handler's policy subject + the engine's verdict), this build against a base build
 * named by TOOLCALL_BENCH_BASE_LIB (a `dist/index.js`), interleaved in one process: allowed
 * plain commands must cost no more than before. Without a base, this build alone.
 */
import type * as Handlers from "../../src/subpaths/handlers.js";
import { lib } from "../lib/lib.js";
import { loadLibrary, type Library } from "../lib/library.js";
import { meanOver } from "../lib/stats.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";

const ALLOW = [
  "shell(git status:*)",
  "shell(git diff:*)",
  "shell(git log:*)",
  "shell(ls:*)",
  "shell(cat:*)",
  "shell(npm test:*)",
  "shell(npm run build:*)",
  "shell(grep:*)",
  "shell(wc:*)",
  "shell(head:*)",
  "shell(echo:*)",
  "shell(pwd)",
];
const DENY = ["shell(rm:*)", "shell(git push:*)", "shell(curl:*)", "shell(sudo:*)", "shell(dd:*)"];
const ASK = ["shell(git commit:*)", "shell(npm publish:*)", "shell(docker:*)"];

/** What the model sends: argv lists and plain `bash -lc` scripts, every one allowed by a rule. */
const COMMANDS: string[][] = [
  ["git", "status"],
  ["ls", "-la", "src"],
  ["npm", "test"],
  ["cat", "package.json"],
  ["bash", "-lc", "git status"],
  ["bash", "-lc", "git diff --stat"],
  ["bash", "-lc", "npm run build"],
  ["bash", "-lc", "ls -la | wc -l"],
  ["bash", "-lc", "git log -n 5 --oneline"],
  ["bash", "-lc", "grep -rn TODO src && echo done"],
];

interface Judge {
  /** Judges the batch; the number of calls allowed. */
  run(): number;
}

function judge(build: Library): Judge {
  const handler = new build.ShellHandler({ timeoutMs: 10_000 });
  const engine = new build.PermissionEngine({ mode: "default", allow: ALLOW, deny: DENY, ask: ASK });
  const turn = build.createTurnContext({ cwd: "/proj" });
  const invocations = Array.from({ length: 100 }, (_, i) => {
    const args = { command: COMMANDS[i % COMMANDS.length] as string[] };
    return { payload: { kind: "function", arguments: JSON.stringify(args) }, args, turn } as unknown as Parameters<
      Handlers.ShellHandler["policySubject"]
    >[0];
  });
  return {
    run() {
      let allowed = 0;
      for (const inv of invocations) {
        const subject = handler.policySubject(inv);
        const verdict = engine.decide({ toolName: "shell", subject, mutating: true, cwd: "/proj" });
        if (verdict.decision === "allow") allowed++;
      }
      return allowed;
    },
  };
}

export const policy: Scenario = {
  id: "policy",
  title: "Policy stage: 100 allowed shell calls under 20 rules",
  async run(ctx) {
    const basePath = process.env["TOOLCALL_BENCH_BASE_LIB"];
    const base = basePath ? await loadLibrary(basePath) : undefined;
    const contenders = [{ id: "after", label: "this build", judge: judge(lib) }];
    if (base) contenders.push({ id: "before", label: `base (${basePath})`, judge: judge(base) });
    const minMs = ctx.quick ? 20 : 100;
    let wrong = 0;
    const variants = await measure(
      contenders.map(({ id, label, judge: j }) => ({
        id,
        label,
        run: async () =>
          // µs per batch of 100 calls
          1000 *
          (await meanOver(
            async () => {
              if (j.run() !== 100) wrong++;
            },
            minMs,
            100_000,
          )),
      })),
      ctx.reps,
      "µs/100 calls",
    );
    if (wrong > 0) throw new Error(`${wrong} batches did not allow every call`);
    const after = medianOf(variants, "after");
    const metrics = [metric("afterUsPer100", "this build", after, "µs/100 calls")];
    if (base) {
      metrics.push(
        metric("ratio", "this build / base", after / medianOf(variants, "before"), "×", {
          op: "<=",
          value: 1.1,
          description: "allowed plain commands cost no more than the base build (10 % noise margin)",
        }),
      );
    }
    return { status: "ok", note: base ? "interleaved with the base build" : "no base build given", variants, metrics };
  },
};
