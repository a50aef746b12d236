import { createHash } from "node:crypto";
import { releaseGroup, spawnGroup } from "../process/index.js";
import type { DirEntry, FileKind, FileOps, FileStat } from "../protocol/index.js";
import type { DockerCli } from "./dockerCli.js";

/*
 * The file tools' operations in a container whose image has no node (DESIGN section 16, "Remote
 * engines"): each one a `docker exec` of `sh` and coreutils (`stat`, `realpath`, `readlink`,
 * `mv`, `chmod`, `ln`, ...), so the container's kernel still resolves every path. Slower than the
 * resident helper (a `docker exec` per operation) but the same answers: the system's error codes,
 * `ENOTREG` for what is not a regular file, atomic writes (a temp file beside the target, then
 * `mv`), links written through.
 */

const STAT = "%F|%s|%a|%i|%Y|%Z";

const SCRIPT = `op=$1; shift
fail() { echo "$1" >&2; exit 3; }
case $op in
stat) exec stat -L -c '${STAT}' -- "$1" ;;
lstat) exec stat -c '${STAT}' -- "$1" ;;
realpath) exec realpath -e -- "$1" ;;
readlink) exec readlink -- "$1" ;;
readdir)
  [ -d "$1" ] || { [ -e "$1" ] && fail ENOTDIR; fail ENOENT; }
  cd -- "$1" || exit 1
  for f in * .[!.]* ..?*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    if [ -L "$f" ]; then k=l; elif [ -d "$f" ]; then k=d; elif [ -f "$f" ]; then k=f; else k=o; fi
    printf '%s/%s\\n' "$k" "$f"
  done ;;
read)
  [ -e "$1" ] || fail ENOENT
  [ -d "$1" ] && fail EISDIR
  [ -f "$1" ] || fail ENOTREG
  stat -L -c '${STAT}' -- "$1" && exec cat -- "$1" ;;
write)
  t=$1; n=0
  while [ -L "$t" ]; do
    n=$((n+1)); [ "$n" -gt 40 ] && fail ELOOP
    l=$(readlink -- "$t"); case $l in /*) t=$l ;; *) t=$(dirname -- "$t")/$l ;; esac
  done
  [ -d "$t" ] && fail EISDIR
  { [ -e "$t" ] && [ ! -f "$t" ]; } && fail ENOTREG
  d=$(realpath -e -- "$(dirname -- "$t")") || exit 1
  b=$(basename -- "$t"); t=$d/$b
  # Only where the call's paths were judged ($3, one per line); then in the directory checked
  # (the shell's cwd holds it: a link flipped on its path afterwards changes nothing).
  if [ -n "$3" ]; then
    ok=; set -f; IFS='
'
    for l in $3; do [ "$l" = "$t" ] && ok=1; done
    [ -n "$ok" ] || { echo "$t" >&2; fail ECHANGED; }
    cd -- "$d" && [ "$(pwd -P)" = "$d" ] || { echo "$(pwd -P)/$b" >&2; fail ECHANGED; }
    d=.
  fi
  tmp=$d/.$b.$$.tmp
  cat > "$tmp" || { rm -f -- "$tmp"; exit 1; }
  if [ -n "$2" ]; then chmod "$2" -- "$tmp"; elif [ -f "$d/$b" ]; then chmod "$(stat -c %a -- "$d/$b")" -- "$tmp"; fi
  mv -f -- "$tmp" "$d/$b" || { rm -f -- "$tmp"; exit 1; }
  echo "$t"; exec stat -c '${STAT}' -- "$d/$b" ;;
mkdir)
  if [ "$2" = p ]; then
    f=; p=$1; while [ ! -e "$p" ] && [ ! -L "$p" ]; do f=$p; p=$(dirname -- "$p"); done
    mkdir -p -- "$1" && echo "$f"
  else mkdir -- "$1"; fi ;;
unlink) { [ -d "$1" ] && [ ! -L "$1" ]; } && fail EISDIR; exec rm -- "$1" ;;
rmdir) exec rmdir -- "$1" ;;
rename) exec mv -f -T -- "$1" "$2" ;;
symlink) exec ln -s -- "$1" "$2" ;;
*) fail EINVAL ;;
esac`;

/** The system's messages, as coreutils and busybox print them, to error codes. */
const CODES: Array<[RegExp, string]> = [
  [/No such file or directory/i, "ENOENT"],
  [/Not a directory/i, "ENOTDIR"],
  [/Is a directory/i, "EISDIR"],
  [/Permission denied|Operation not permitted/i, "EACCES"],
  [/File exists/i, "EEXIST"],
  [/not empty/i, "ENOTEMPTY"],
  [/Read-only file system/i, "EROFS"],
  [/Too many levels of symbolic links/i, "ELOOP"],
];

const KINDS: Record<string, FileKind> = { l: "symlink", d: "directory", f: "file", o: "other" };

function kindOf(described: string): FileKind {
  if (described.startsWith("regular")) return "file";
  if (described === "directory") return "directory";
  if (described === "symbolic link") return "symlink";
  return "other";
}

function parseStat(line: string): FileStat {
  const [kind = "", size = "0", mode = "0", ino = "0", mtime = "0", ctime = "0"] = line.trim().split("|");
  return {
    kind: kindOf(kind),
    size: Number(size),
    mode: parseInt(mode, 8),
    ino: Number(ino),
    mtimeMs: Number(mtime) * 1000,
    ctimeMs: Number(ctime) * 1000,
  };
}

export function shellFileOps(cli: DockerCli, container: string, started: () => Promise<void>): FileOps {
  /** Runs one operation; resolves with its stdout, rejects with an Error carrying the code. */
  async function sh(op: string, args: readonly string[], input?: Buffer): Promise<Buffer> {
    await started();
    const run = await spawnGroup(
      cli.binary,
      ["exec", ...(input ? ["--interactive"] : []), container, "sh", "-c", SCRIPT, "sh", op, ...args],
      { cwd: "/", env: cli.env, stdio: [input ? "pipe" : "ignore", "pipe", "pipe"], forwardHostSignals: false },
    );
    const out: Buffer[] = [];
    let err = "";
    run.child.stdout?.on("data", (c: Buffer) => out.push(c));
    run.child.stderr?.setEncoding("utf8").on("data", (s: string) => (err += s));
    run.child.stdin?.on("error", () => undefined);
    run.child.stdin?.end(input);
    const { code } = await run.exited;
    await releaseGroup(run);
    if (code === 0) return Buffer.concat(out);
    const lines = err.trim().split("\n");
    const said = lines.at(-1) ?? "";
    const found = /^E[A-Z]+$/.test(said) ? said : CODES.find(([re]) => re.test(said))?.[1];
    const path = args[0] ?? "";
    if (found === "ECHANGED") {
      const landed = lines.at(-2) ?? "";
      throw Object.assign(new Error(`${path} would land at ${landed}, not where it was judged`), {
        code: found,
        path: landed,
      });
    }
    const message = found === "ENOTREG" ? `${path} is not a regular file` : `${found ?? "EIO"}: ${said || op}, ${path}`;
    throw Object.assign(new Error(message), { code: found ?? "EIO" });
  }
  const text = async (op: string, ...args: string[]): Promise<string> => (await sh(op, args)).toString("utf8");

  async function read(
    p: string,
    opts: { position?: number; length?: number } = {},
  ): Promise<{ data: Buffer; stat: FileStat }> {
    const out = await sh("read", [p]);
    const nl = out.indexOf(10);
    const stat = parseStat(out.subarray(0, nl).toString("utf8"));
    const start = opts.position ?? 0;
    const data = out.subarray(nl + 1 + start, opts.length === undefined ? undefined : nl + 1 + start + opts.length);
    return { data: Buffer.from(data), stat };
  }

  return {
    stat: async (p) => parseStat(await text("stat", p)),
    lstat: async (p) => parseStat(await text("lstat", p)),
    realpath: async (p) => (await text("realpath", p)).replace(/\n$/, ""),
    readlink: async (p) => (await text("readlink", p)).replace(/\n$/, ""),
    readdir: async (p): Promise<DirEntry[]> =>
      (await text("readdir", p))
        .split("\n")
        .filter((l) => l.length > 2)
        .map((l) => ({ name: l.slice(2), kind: KINDS[l[0] ?? "o"] ?? "other" })),
    read,
    hash: async (p) => {
      const { data, stat } = await read(p);
      return { sha256: createHash("sha256").update(data).digest("hex"), stat };
    },
    write: async (p, data, opts) => {
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      const mode = opts?.mode !== undefined ? (opts.mode & 0o7777).toString(8) : "";
      const onlyAt = opts?.onlyAt?.join("\n") ?? "";
      const [landed = p, stat = ""] = (await sh("write", [p, mode, onlyAt], bytes)).toString("utf8").split("\n");
      return { path: landed, stat: parseStat(stat) };
    },
    mkdir: async (p, opts) => {
      const first = (await text("mkdir", p, opts?.recursive === true ? "p" : "")).replace(/\n$/, "");
      return opts?.recursive === true ? first || undefined : undefined;
    },
    unlink: async (p) => {
      await sh("unlink", [p]);
    },
    rmdir: async (p) => {
      await sh("rmdir", [p]);
    },
    rename: async (from, to) => {
      await sh("rename", [from, to]);
    },
    symlink: async (target, p) => {
      await sh("symlink", [target, p]);
    },
  };
}
