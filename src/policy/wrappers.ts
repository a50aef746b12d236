/**
 * Commands that run other commands (`env`, `sudo`, `nice`, `xargs`, shells): where the command
 * they run starts, so rules judge what runs (DESIGN section 11). git's global options are in
 * gitOptions.ts.
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
  /** With no command it runs a shell, which reads its stdin (`script`, `chroot DIR`, `unshare`). */
  shellWhenEmpty?: boolean;
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

const STRACE_VALUES = set("-a", "-b", "-e", "-E", "-I", "-o", "-O", "-p", "-P", "-s", "-S", "-u", "-U", "-X");
const LTRACE_VALUES = set("-a", "-A", "-D", "-e", "-F", "-l", "-n", "-o", "-p", "-s", "-u", "-w", "-x");
const NSENTER_VALUES = set("-t", "--target", "-S", "--setuid", "-G", "--setgid");
const UNSHARE_VALUES = set(
  "-S",
  "--setuid",
  "-G",
  "--setgid",
  "-R",
  "--root",
  "-w",
  "--wd",
  "--propagation",
  "--setgroups",
  "--map-user",
  "--map-group",
  "--map-users",
  "--map-groups",
);
const SETPRIV_VALUES = set(
  "--ruid",
  "--euid",
  "--reuid",
  "--rgid",
  "--egid",
  "--regid",
  "--groups",
  "--inh-caps",
  "--ambient-caps",
  "--bounding-set",
  "--securebits",
  "--pdeathsig",
  "--selinux-label",
  "--apparmor-profile",
  "--landlock-access",
  "--landlock-rule",
);
const SYSTEMD_RUN_VALUES = set(
  "-u",
  "--unit",
  "-p",
  "--property",
  "-E",
  "--setenv",
  "-M",
  "--machine",
  "-H",
  "--host",
  "--description",
  "--slice",
  "--uid",
  "--gid",
  "--nice",
  "--working-directory",
  "--service-type",
  "--on-active",
  "--on-boot",
  "--on-startup",
  "--on-unit-active",
  "--on-unit-inactive",
  "--on-calendar",
  "--timer-property",
  "--path-property",
  "--socket-property",
);
const XVFB_VALUES = set(
  "-n",
  "--server-num",
  "-s",
  "--server-args",
  "-f",
  "--auth-file",
  "-e",
  "--error-file",
  "-p",
  "--xauth-protocol",
  "-w",
  "--wait",
);
const NUMACTL_VALUES = set(
  "-i",
  "--interleave",
  "-m",
  "--membind",
  "-N",
  "--cpunodebind",
  "-C",
  "--physcpubind",
  "-p",
  "--preferred",
  "-P",
  "--preferred-many",
  "-w",
  "--weighted-interleave",
);
const PARALLEL_VALUES = set(
  "-j",
  "--jobs",
  "-S",
  "--sshlogin",
  "-a",
  "--arg-file",
  "-d",
  "--delimiter",
  "-I",
  "-N",
  "-n",
  "--max-args",
  "-L",
  "--colsep",
  "-C",
  "--joblog",
  "--results",
  "--tmpdir",
  "--timeout",
  "--delay",
);
const RUNUSER_VALUES = set(
  "-u",
  "--user",
  "-g",
  "--group",
  "-G",
  "--supp-group",
  "-s",
  "--shell",
  "-w",
  "--whitelist-environment",
);

/** The script of a `-c script` (also `-lc`, `--command script`, `--command=script`), if any. */
function dashC(words: readonly string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const word = words[i] ?? "";
    if (/^-[A-Za-z]*c$/.test(word) || word === "--command") return words[i + 1] ?? "";
    const inline = /^--command=(.*)$/s.exec(word)?.[1];
    if (inline !== undefined) return inline;
  }
  return undefined;
}

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
      const c = dashC(words);
      return c !== undefined ? { script: c, elevated: true } : { elevated: true };
    },
    // A trap's action and an alias's value are code the shell runs later.
    trap: (words) => (has(words, words.length, "-l", "-p") ? {} : { script: words[afterOptions(words, set())] ?? "" }),
    alias: (words) => ({
      script: words
        .slice(1)
        .map((w) => /^[^=]+=(.*)$/s.exec(w)?.[1])
        .filter((v) => v !== undefined)
        .join("\n"),
    }),
    script(words) {
      const c = dashC(words);
      return c !== undefined ? { script: c } : { shellWhenEmpty: true, start: words.length };
    },
    strace: (words) => ({ start: afterOptions(words, STRACE_VALUES) }),
    ltrace: (words) => ({ start: afterOptions(words, LTRACE_VALUES) }),
    valgrind: (words) => ({ start: afterOptions(words, set()) }),
    nsenter: (words) => ({ start: afterOptions(words, NSENTER_VALUES), shellWhenEmpty: true }),
    unshare: (words) => ({ start: afterOptions(words, UNSHARE_VALUES), shellWhenEmpty: true }),
    chroot: (words) => ({ start: afterOptions(words, set("--userspec", "--groups")) + 1, shellWhenEmpty: true }),
    setpriv: (words) => ({ start: afterOptions(words, SETPRIV_VALUES) }),
    prlimit(words) {
      const start = afterOptions(words, set("-p", "--pid", "-o", "--output"));
      return has(words, start, "-p", "--pid") ? {} : { start };
    },
    "systemd-run": (words) => ({ start: afterOptions(words, SYSTEMD_RUN_VALUES) }),
    fakeroot: (words) => ({ start: afterOptions(words, set("-l", "--lib", "--faked", "-i", "-s", "-b")) }),
    "dbus-run-session": (words) => ({ start: afterOptions(words, set("--config-file", "--dbus-daemon")) }),
    unbuffer: (words) => ({ start: afterOptions(words, set()) }),
    "xvfb-run": (words) => ({ start: afterOptions(words, XVFB_VALUES) }),
    numactl: (words) => ({ start: afterOptions(words, NUMACTL_VALUES) }),
    firejail: (words) => ({ start: afterOptions(words, set()) }),
    faketime: (words) => ({ start: afterOptions(words, set()) + 1 }),
    catchsegv: () => ({ start: 1 }),
    parallel(words) {
      const start = afterOptions(words, PARALLEL_VALUES);
      return start < words.length ? { start, appends: true } : {};
    },
    // `sg group cmd...` hands its words to /bin/sh -c; with no command it is a shell.
    sg(words) {
      const group = afterOptions(words, set());
      const rest = words.slice(group + 1);
      const c = rest[0] === "-c" ? rest.slice(1) : rest;
      return c.length > 0 ? { script: c.join(" ") } : { shellWhenEmpty: true, start: words.length };
    },
    runuser(words) {
      const c = dashC(words);
      if (c !== undefined) return { script: c, elevated: true };
      const start = afterOptions(words, RUNUSER_VALUES);
      return has(words, start, "-u", "--user") ? { start, elevated: true } : { elevated: true };
    },
  } satisfies Record<string, (words: readonly string[]) => Inner>),
);

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "yash", "rbash"]);
