import type { Readable, Writable } from "node:stream";

/**
 * Where commands run and files are written (DESIGN section 12): plain types, here so a turn
 * can carry its environment; the local and bubblewrap environments are `src/sandbox`.
 */

export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

export interface SandboxPolicy {
  mode: SandboxMode;
  /** `workspace-write` may also write the turn's cwd (and commands their private `/tmp`). */
  writableRoots?: string[];
  /** Default false: commands get no network (bubblewrap `--unshare-net`). */
  networkAccess?: boolean;
  /**
   * With `networkAccess` false: sandboxed commands reach these domains and no other, through a
   * proxy on the host (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` set). `example.com` is that
   * name, `*.example.com` every name below it (not itself), an IPv4 address itself; no scheme,
   * port or path. Any port of a listed host.
   */
  allowedDomains?: string[];
  /** Default: everywhere. When given, the file tools read nothing else and commands see nothing else. */
  readableRoots?: string[];
  /**
   * Host Unix sockets sandboxed commands may reach (e.g. an ssh-agent's). Default none: every
   * other host socket is hidden and creating a Unix socket is refused (seccomp).
   */
  allowUnixSockets?: string[];
}

/** Which variables a command sees (Codex `shell_environment_policy`). */
export interface EnvironmentPolicy {
  /** Default "all"; "core" = HOME LOGNAME PATH SHELL USER USERNAME TMPDIR TEMP TMP LANG LC_* TERM. */
  inherit?: "all" | "core" | "none";
  /**
   * Default false: names matching `*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASSWORD*`, `*PASSWD*`,
   * `*_PASS`, `*CREDENTIAL*`, `*AUTH*` (not `*AUTHOR*`), `*_PAT`, `*COOKIE*` (case-insensitive),
   * and values holding a URL with a password (`scheme://user:pw@host`), are dropped.
   */
  ignoreDefaultExcludes?: boolean;
  /** Name globs (`*`, `?`; case-insensitive) to drop. */
  exclude?: string[];
  /** Name globs: when given, only matching names are kept. */
  includeOnly?: string[];
  /** Applied last: overrides inherited values and survives `includeOnly`. */
  set?: Record<string, string>;
}

export interface SpawnRequest {
  /** Program and arguments, run directly (no shell). */
  argv: readonly string[];
  /** An existing directory. */
  cwd: string;
  /** The call's own variables, set over what the environment policy lets through. */
  env?: Record<string, string>;
  /** Default "ignore" (the command reads EOF). */
  stdin?: "ignore" | "pipe";
  /**
   * A pseudo-terminal (24 rows, 80 columns) for stdin, stdout and stderr, which then arrive
   * merged on `stdout`. Requires `stdin: "pipe"`.
   */
  tty?: boolean;
  /**
   * Default true. False runs the command outside the sandbox: an escalation a person approved,
   * or the user's own hook scripts. The environment policy applies either way.
   */
  sandboxed?: boolean;
}

/** A started command: the leader of its own process group (or the environment's equivalent). */
export interface SpawnedProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Never rejects. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to everything it started, SIGKILL after `graceMs`; resolves when none is left. */
  terminate(graceMs: number): Promise<void>;
  /**
   * SIGINT to its process group (Ctrl-C without a terminal); false when nothing was signalled.
   * Absent where the environment cannot deliver it (then Ctrl-C is refused).
   */
  interrupt?(): boolean;
  /**
   * Kills whatever it left (background children), waits briefly for its pipes, and releases
   * it. Call once it exited (or was terminated); calling again is a no-op.
   */
  dispose(): Promise<void>;
}

/** What a path is: the kind of file, without following a final symlink for `lstat`. */
export type FileKind = "file" | "directory" | "symlink" | "other";

/** The parts of a `stat` the file tools use. */
export interface FileStat {
  kind: FileKind;
  size: number;
  /** Permission bits (`mode & 0o7777`). */
  mode: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

export interface DirEntry {
  name: string;
  kind: FileKind;
}

/**
 * Every file operation of the file tools, where the environment resolves paths (DESIGN
 * section 12, "The boundary is the kernel's"): in the host process for full access, through the
 * resident helper inside bubblewrap for the sandboxed modes. Failures reject with an `Error`
 * carrying the system's `code` (`ENOENT`, `EROFS`, ...); `ENOTREG` for what is not a regular
 * file; `EHELPER` when the helper stopped during the call.
 */
export interface FileOps {
  /** Follows symlinks. */
  stat(path: string): Promise<FileStat>;
  lstat(path: string): Promise<FileStat>;
  realpath(path: string): Promise<string>;
  readlink(path: string): Promise<string>;
  readdir(path: string): Promise<DirEntry[]>;
  /**
   * Up to `length` bytes (default: all) from `position` (default 0) of a regular file, opened
   * non-blocking and checked before reading, so a FIFO or device is refused at once (`ENOTREG`).
   * With `named`, also the real path of the file it opened (`real`), named from the open
   * descriptor where the system can tell (no second walk of the path, which a link flipped
   * meanwhile could lead elsewhere); absent where it cannot.
   */
  read(
    path: string,
    opts?: { position?: number; length?: number; named?: boolean },
  ): Promise<{ data: Buffer; stat: FileStat; real?: string }>;
  /** SHA-256 (hex) of a regular file's contents, with its state when read. */
  hash(path: string): Promise<{ sha256: string; stat: FileStat }>;
  /**
   * Replaces or creates `path` atomically: a temp file beside the target, then a rename. A
   * symlink is written through (its target, dangling too); an existing non-regular target is
   * refused (`ENOTREG`). The mode is `mode`, else the replaced file's, else the default.
   * Resolves with where it landed (a real path) and the new file's state. With `onlyAt`, a
   * write that would land anywhere else (a link flipped since the call's paths were judged) is
   * refused before a byte is written (`ECHANGED`, naming where it would have landed), and the
   * directory checked is the one written to.
   */
  write(
    path: string,
    data: Buffer | string,
    opts?: { mode?: number; onlyAt?: readonly string[] },
  ): Promise<{ path: string; stat: FileStat }>;
  /** The first directory created, as `mkdir -p` (undefined when none was). */
  mkdir(path: string, opts?: { recursive?: boolean }): Promise<string | undefined>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
}

/** The seam: local, bubblewrap, or the embedder's own (a container, a remote machine). */
export interface ExecEnvironment {
  readonly kind: string;
  /** The resolved sandbox policy (roots are real paths); the permission stage reads its roots. */
  readonly sandbox: Readonly<Required<Omit<SandboxPolicy, "readableRoots" | "allowedDomains" | "allowUnixSockets">>> & {
    readableRoots?: readonly string[];
    allowUnixSockets?: readonly string[];
    /** The allowlist, with the domains a person allowed since (see `allowDomains`). */
    allowedDomains?: readonly string[];
  };
  /**
   * Starts a command. Rejects with a FunctionCallError (respond to model) when it cannot start:
   * `command not found: {program}`, `sandbox unavailable: ...`.
   */
  spawn(req: SpawnRequest): Promise<SpawnedProcess>;
  /**
   * Rejects with a `SandboxDenial` naming the first path, as the model wrote it, that may not
   * be written; relative paths resolve against `opts.cwd` (default the environment's cwd).
   */
  checkWrite(paths: readonly string[], opts?: { cwd?: string }): Promise<void>;
  /** Rejects with a FunctionCallError when the path may not be read or is not a regular file or directory. */
  checkRead(path: string, opts?: { cwd?: string }): Promise<void>;
  /**
   * False when nothing runs with fewer limits on a person's allow (a container: `sandboxed:
   * false` still runs inside it), so no `sandbox_escalation` is asked. Default true.
   */
  readonly canEscalate?: boolean;
  /**
   * Adds domains to `sandbox.allowedDomains` for the rest of the environment's life (a person
   * allowed a refused domain). Absent where there is no allowlist to add to.
   */
  allowDomains?(hosts: readonly string[]): void;
  /**
   * The file tools' reads and writes (default: in the host process, for an environment that
   * shares the host's file system, e.g. a container's bind mount).
   */
  readonly files?: FileOps;
  /** Ends what it started. */
  close?(): Promise<void>;
}
