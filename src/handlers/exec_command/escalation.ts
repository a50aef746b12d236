import path from "node:path";
import { quote } from "shell-quote";
import { texts, type ExecEnvironment, type PermissionDecider } from "../../protocol/index.js";
import type { ToolInvocation } from "../../registry/index.js";
import { scriptCommands } from "../../util/index.js";
import { isKnownSafeCommand } from "../shell/index.js";

/**
 * Prefixes a model may never have remembered, whatever it runs: each runs any code its
 * arguments carry (Codex `BANNED_PREFIX_SUGGESTIONS`, core/src/exec_policy.rs).
 */
const BANNED_PREFIXES: ReadonlyArray<readonly string[]> = [
  ["python3"],
  ["python3", "-"],
  ["python3", "-c"],
  ["python"],
  ["python", "-"],
  ["python", "-c"],
  ["py"],
  ["py", "-3"],
  ["pythonw"],
  ["pyw"],
  ["pypy"],
  ["pypy3"],
  ["git"],
  ["bash"],
  ["bash", "-lc"],
  ["sh"],
  ["sh", "-c"],
  ["sh", "-lc"],
  ["zsh"],
  ["zsh", "-lc"],
  ["/bin/zsh"],
  ["/bin/zsh", "-lc"],
  ["/bin/bash"],
  ["/bin/bash", "-lc"],
  ["pwsh"],
  ["pwsh", "-Command"],
  ["pwsh", "-c"],
  ["powershell"],
  ["powershell", "-Command"],
  ["powershell", "-c"],
  ["powershell.exe"],
  ["powershell.exe", "-Command"],
  ["powershell.exe", "-c"],
  ["env"],
  ["sudo"],
  ["node"],
  ["node", "-e"],
  ["perl"],
  ["perl", "-e"],
  ["ruby"],
  ["ruby", "-e"],
  ["php"],
  ["php", "-r"],
  ["lua"],
  ["lua", "-e"],
  ["osascript"],
];

/** A person reads the justification in one line: control characters go, and so does length past this. */
const MAX_JUSTIFICATION_CHARS = 500;
/** A prefix word that is plain text: no control characters (a newline would read as another rule). */
// eslint-disable-next-line no-control-regex
const PLAIN_WORD = /^[^\x00-\x1f\x7f]+$/;

/** `exec_command`'s escalation parameters (Codex 0.171). */
export interface EscalationArgs {
  cmd: string;
  justification?: string;
  prefix_rule?: string[];
  sandbox_permissions?: "use_default" | "require_escalated";
}

const startsWith = (words: readonly string[], prefix: readonly string[]): boolean =>
  prefix.length <= words.length && prefix.every((w, i) => words[i] === w);

/**
 * The rule a person may remember for the model's `prefix_rule`, or undefined. Judged, never
 * trusted (as Codex judges it): not a banned interpreter prefix, not a program a deny rule
 * names, and it must cover every command `cmd` runs that is not known safe (each begins with
 * its words); a script that cannot be read, or a prefix that matches none of it (broader than,
 * or beside, the command), gets none.
 */
export function judgePrefixRule(
  args: EscalationArgs,
  permissions: PermissionDecider | undefined,
  cwd: string,
): string | undefined {
  const prefix = args.prefix_rule;
  if (!prefix || prefix.length === 0 || !prefix.every((w) => PLAIN_WORD.test(w))) return undefined;
  if (BANNED_PREFIXES.some((b) => b.length === prefix.length && b.every((w, i) => w === prefix[i]))) return undefined;
  const commands = scriptCommands(args.cmd);
  if (commands === undefined || commands.length === 0) return undefined;
  // A word known only at run time could be anything: such a command is not one the rule can be judged against.
  const covered = commands.filter((c) => c.dynamicAt >= prefix.length && startsWith(c.words, prefix));
  if (covered.length === 0) return undefined;
  if (!commands.every((c) => covered.includes(c) || (c.dynamicAt === c.words.length && isKnownSafeCommand(c.words))))
    return undefined;
  const rule = `exec_command(${quote(prefix)}:*)`;
  if (permissions) {
    // A prefix naming a denied program (or whose commands a rule denies) is not offered for remembering.
    const denied = (words: string[]): boolean =>
      permissions.decide({ toolName: "exec_command", subject: { commands: [words] }, mutating: true, cwd }).decision ===
      "deny";
    const program = prefix[0] ?? "";
    if (denied(prefix) || denied([path.posix.basename(program)]) || covered.some((c) => denied(c.words)))
      return undefined;
  }
  return rule;
}

/**
 * What `sandbox_permissions` makes of this call before it runs: `"sandboxed"` (the default, or
 * nothing to escalate from), `"unsandboxed"` (a person allowed the model's request), or
 * `"refused"` (asked and not allowed, or nobody can allow it: the command does not run).
 */
export async function requestedEscalation(
  inv: ToolInvocation,
  args: EscalationArgs,
  env: ExecEnvironment,
): Promise<"sandboxed" | "unsandboxed" | "refused"> {
  if (args.sandbox_permissions !== "require_escalated") return "sandboxed";
  if (env.sandbox.mode === "danger-full-access" || env.canEscalate === false) return "sandboxed";
  if (!inv.escalate) return "refused";
  const rule = judgePrefixRule(args, inv.turn.permissions, inv.turn.cwd);
  const justification = args.justification
    // eslint-disable-next-line no-control-regex
    ?.replace(/[\x00-\x1f\x7f]+/g, " ")
    .trim()
    .slice(0, MAX_JUSTIFICATION_CHARS);
  const allowed = await inv.escalate({
    reason: texts.escalateRequested(justification),
    summary: args.cmd,
    ...(rule !== undefined && { suggestedRules: [rule] }),
  });
  return allowed ? "unsandboxed" : "refused";
}
