import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    await access(candidate, constants.X_OK);
    return (await stat(candidate)).isFile();
  } catch {
    return false;
  }
}

/** `name` on `pathEnv` (a `PATH` value), as `execvp` finds it; null when it is not there. */
export async function findExecutable(name: string, pathEnv: string | undefined): Promise<string | null> {
  for (const dir of (pathEnv ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Lookups of the host's own helpers (bwrap, setpriv, rg), cached per `PATH` value. */
export function cachedLookup(name: string): (pathEnv: string | undefined) => Promise<string | null> {
  const found = new Map<string, Promise<string | null>>();
  return (pathEnv) => {
    const key = pathEnv ?? "";
    let hit = found.get(key);
    if (!hit) {
      hit = findExecutable(name, key);
      found.set(key, hit);
    }
    return hit;
  };
}

/**
 * Why `program` cannot start, in the words the model reads, or undefined when it can: a bare
 * name is looked up on `pathEnv`, a path against `cwd`. Checked before spawning, so a wrapper
 * (bwrap, setpriv) that would exec it cannot blur the answer.
 */
export async function programProblem(
  program: string,
  cwd: string,
  pathEnv: string | undefined,
): Promise<string | undefined> {
  if (program === "") return "command must not be empty";
  if (!program.includes("/")) {
    return (await findExecutable(program, pathEnv)) ? undefined : `command not found: ${program}`;
  }
  const abs = path.resolve(cwd, program);
  try {
    const st = await stat(abs);
    if (!st.isFile()) return `permission denied: ${program} is not executable`;
    await access(abs, constants.X_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR"
      ? `command not found: ${program}`
      : `permission denied: ${program} is not executable`;
  }
}
