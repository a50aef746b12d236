/**
 * Commands that run other commands (`env`, `sudo`, `nice`, `xargs`, shells, git's global
 * options): where the command they run starts, so rules judge what runs (DESIGN section 11).
 */
/** What a wrapper makes run: the words from `start`, a script, or nothing. */
export interface Inner {
  start?: number;
  script?: string;
  /** Its command gets more arguments at run time (`xargs`). */
  appends?: boolean;
  /** Runs with another user's rights. */
  elevated?: boolean;
  /** What it runs cannot be told (a `-S` string with quoting). */
  opaque?: boolean;
}

/**
 * The first operand after `from`: options are skipped, with their value when listed in
 * `withValue` (`-n 5`, `--signal=KILL` and `-n5` are read as one option); `--` ends them.
 */
function afterOptions(words: readonly string[], withValue: ReadonlySet<string>, from = 1): number {
  for (let i = from; i < words.length; i++) {
    const word = words[i] ?? "";
    if (word === "--") return i + 1;
    if (!word.startsWith("-") || word === "-") return i;
    if (withValue.has(word)) i++;
  }
  return words.length;
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items);
const has = (words: readonly string[], end: number, ...flags: string[]): boolean =>
  words.slice(1, end).some((w) => flags.includes(w) || flags.some((f) => f.startsWith("--") && w.startsWith(`${f}=`)));

const ENV_VALUES = set("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-a", "--argv0");
const SUDO_VALUES = set(
  "-u",
  "--user",
  "-g",
  "--group",
  "-C",
  "--close-from",
  "-D",
  "--chdir",
  "-h",
  "--host",
  "-p",
  "--prompt",
  "-r",
  "--role",
  "-t",
  "--type",
  "-T",
  "--command-timeout",
  "-U",
  "--other-user",
);
const XARGS_VALUES = set(
  "-a",
  "--arg-file",
  "-d",
  "--delimiter",
  "-E",
  "-I",
  "-L",
  "-n",
  "--max-args",
  "-P",
  "--max-procs",
  "-s",
  "--max-chars",
  "--process-slot-var",
);

/** From the first operand after assignments (`env A=1 rm`, `sudo A=1 rm`). */
function skipAssignments(words: readonly string[], from: number): number {
  let i = from;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] ?? "")) i++;
  return i;
}

export const WRAPPERS = new Map<string, (words: readonly string[]) => Inner>(
  Object.entries({
    env(words) {
      // `-S "rm -f x"` splits its string into the command's first words.
      for (let i = 1; i < words.length; i++) {
        const word = words[i] ?? "";
        const split =
          word === "-S" || word === "--split-string" ? words[i + 1] : /^(-S|--split-string=)(.+)$/.exec(word)?.[2];
        if (split !== undefined) {
          if (/["'\\$`]/.test(split)) return { opaque: true };
          const start = skipAssignments(words, afterOptions(words, ENV_VALUES));
          return { script: [split, ...words.slice(start)].join(" ") };
        }
        if (!word.startsWith("-")) break;
      }
      return { start: skipAssignments(words, afterOptions(words, ENV_VALUES)) };
    },
    command(words) {
      const start = afterOptions(words, set());
      // `command -v rm` only prints where rm is.
      return has(words, start, "-v", "-V") ? {} : { start };
    },
    builtin: (words) => ({ start: afterOptions(words, set()) }),
    exec: (words) => ({ start: afterOptions(words, set("-a")) }),
    nice: (words) => ({ start: afterOptions(words, set("-n", "--adjustment")) }),
    ionice(words) {
      const start = afterOptions(
        words,
        set("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"),
      );
      return has(words, start, "-p", "--pid", "-P", "--pgid", "-u", "--uid") ? {} : { start };
    },
    timeout: (words) => ({ start: afterOptions(words, set("-k", "--kill-after", "-s", "--signal")) + 1 }),
    nohup: (words) => ({ start: afterOptions(words, set()) }),
    stdbuf: (words) => ({ start: afterOptions(words, set("-i", "--input", "-o", "--output", "-e", "--error")) }),
    time: (words) => ({ start: afterOptions(words, set("-f", "--format", "-o", "--output")) }),
    setsid: (words) => ({ start: afterOptions(words, set()) }),
    coproc: () => ({ start: 1 }),
    busybox: () => ({ start: 1 }),
    toybox: () => ({ start: 1 }),
    chrt(words) {
      const start = afterOptions(words, set("-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"));
      if (has(words, start, "-p", "--pid")) return {};
      return { start: /^\d+$/.test(words[start] ?? "") ? start + 1 : start };
    },
    taskset(words) {
      const start = afterOptions(words, set());
      return has(words, start, "-p", "--pid") ? {} : { start: start + 1 };
    },
    flock(words) {
      const values = set("-E", "--conflict-exit-code", "-w", "--timeout", "-c", "--command");
      for (let i = 1; i < words.length - 1; i++) {
        if (words[i] === "-c" || words[i] === "--command") return { script: words[i + 1] ?? "" };
      }
      const file = afterOptions(words, values);
      // `flock 9` locks a descriptor and runs nothing.
      if (/^\d+$/.test(words[file] ?? "") && file === words.length - 1) return {};
      return { start: afterOptions(words, values, file + 1) };
    },
    watch(words) {
      const start = afterOptions(words, set("-n", "--interval", "-q", "--equexit"));
      // watch hands its words to `sh -c` (unless -x, where the words are the command: judged the same).
      return { script: words.slice(start).join(" ") };
    },
    xargs(words) {
      const start = afterOptions(words, XARGS_VALUES);
      return start < words.length ? { start, appends: true } : {};
    },
    sudo(words) {
      const start = skipAssignments(words, afterOptions(words, SUDO_VALUES));
      return { start, elevated: true };
    },
    doas: (words) => ({ start: afterOptions(words, set("-u", "-C")), elevated: true }),
    pkexec: (words) => ({ start: afterOptions(words, set("--user")), elevated: true }),
    su(words) {
      for (let i = 1; i < words.length; i++) {
        const word = words[i] ?? "";
        if ((word === "-c" || word === "--command") && i + 1 < words.length)
          return { script: words[i + 1] ?? "", elevated: true };
        const inline = /^--command=(.*)$/s.exec(word)?.[1];
        if (inline !== undefined) return { script: inline, elevated: true };
      }
      return { elevated: true };
    },
  } satisfies Record<string, (words: readonly string[]) => Inner>),
);

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "yash", "rbash"]);

const GIT_VALUES = set(
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
);

/**
 * `git -C . -c a=b --no-pager push` -> `git push`: git's global options skipped before the
 * subcommand. Undefined when there are none to skip.
 */
export function gitCanonical(
  words: readonly string[],
  dynamicAt: number,
): { words: string[]; dynamicAt: number } | undefined {
  let i = 1;
  while (i < words.length && i < dynamicAt) {
    const word = words[i] ?? "";
    if (!word.startsWith("-")) break;
    i += GIT_VALUES.has(word) ? 2 : 1;
  }
  if (i === 1) return undefined;
  return { words: [words[0] ?? "git", ...words.slice(i)], dynamicAt: Math.max(1, dynamicAt - (i - 1)) };
}
