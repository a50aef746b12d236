/**
 * git's global options (DESIGN section 11): skipped to find the subcommand a rule names, and
 * judged for what they let git run that its words do not show.
 */
const GIT_VALUES: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--exec-path",
  "--attr-source",
  "--list-cmds",
]);

/**
 * Configuration that makes git run a program or a script (`alias.x=!rm V`, a pager, an
 * editor, a filter, a credential helper, hooks) or read more configuration: with it, what
 * `git ...` runs cannot be told from its words. A boolean-like value turns a feature off.
 */
const GIT_CODE_KEY =
  /^(alias\..+|core\.(pager|editor|sshcommand|askpass|fsmonitor|gitproxy|hookspath|alternaterefscommand|worktree)|sequence\.editor|diff\.(external|.+\.(command|textconv))|difftool\..+|merge\..+\.driver|mergetool\..+|filter\..+|credential(\..+)?|gpg\..+|pager\..+|interactive\.difffilter|uploadpack\..+|remote\..+\.(uploadpack|receivepack|vcs)|protocol\..+|url\..+|include\.path|includeif\..+|sendemail\..+|web\.browser|browser\..+|man\..+|instaweb\..+|ssh\.variant|submodule\..+\.update|trailer\..+\.(command|cmd)|gc\..+|init\.templatedir)$/i;
const OFF = /^(|false|true|no|yes|off|on|0|1|\/dev\/null)$/i;

/** Does this `-c`/`--config-env` value, or this option, let git run something unseen? */
function gitRunsUnseen(option: string, value: string | undefined): boolean {
  if (option === "--exec-path" || option.startsWith("--exec-path=")) return true;
  const setting = option === "-c" ? value : option.startsWith("--config-env") ? (value ?? option.slice(13)) : undefined;
  if (setting === undefined) return false;
  const eq = setting.indexOf("=");
  const key = eq === -1 ? setting : setting.slice(0, eq);
  // `--config-env key=ENVVAR` takes its value from the environment: never known.
  const known = option === "-c" && eq !== -1 ? setting.slice(eq + 1) : undefined;
  return GIT_CODE_KEY.test(key) && (known === undefined || !OFF.test(known));
}

/**
 * `git -C . -c a=b --no-pager push` -> `git push`: git's global options skipped before the
 * subcommand. Undefined when there are none to skip; `opaque` when one of them lets git run
 * something its words do not show (`-c alias.p=!rm p`).
 */
export function gitCanonical(
  words: readonly string[],
  dynamicAt: number,
): { words: string[]; dynamicAt: number; opaque?: true } | undefined {
  let i = 1;
  let opaque = false;
  while (i < words.length && i < dynamicAt) {
    const word = words[i] ?? "";
    if (!word.startsWith("-")) break;
    if (gitRunsUnseen(word, GIT_VALUES.has(word) ? words[i + 1] : undefined)) opaque = true;
    i += GIT_VALUES.has(word) ? 2 : 1;
  }
  if (i === 1) return undefined;
  if (opaque) return { words: [...words], dynamicAt, opaque };
  return { words: [words[0] ?? "git", ...words.slice(i)], dynamicAt: Math.max(1, dynamicAt - (i - 1)) };
}
