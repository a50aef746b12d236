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

/** Lookups of the host's own helpers (bwrap, rg), cached per `PATH` value. */
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
 * Programs found to start, by `programKey`. The lookup is a few `access`/`stat` calls per PATH
 * directory, about a third of the handler's own cost for a short command (bench/exec.ts). A hit
 * is kept until a spawn of it fails (`forgetProgram`, then the lookup runs again for the
 * model's words); a miss is never kept, so a program installed later is found. `spawn` does
 * its own PATH search, so a cached hit never decides which file runs.
 */
const startable = new Set<string>();
const MAX_STARTABLE = 1_000;

function programKey(program: string, cwd: string, pathEnv: string | undefined): string {
  return program.includes("/") ? path.resolve(cwd, program) : `${program}\0${pathEnv ?? ""}`;
}

/** A spawn of `program` failed: its next `programProblem` looks it up again. */
export function forgetProgram(program: string, cwd: string, pathEnv: string | undefined): void {
  startable.delete(programKey(program, cwd, pathEnv));
}

/**
 * Why `program` cannot start, in the words the model reads, or undefined when it can: a bare
 * name is looked up on `pathEnv`, a path against `cwd`. Checked before spawning, so a wrapper
 * (bwrap) that would exec it cannot blur the answer. Hits are cached (see `startable`).
 */
export async function programProblem(
  program: string,
  cwd: string,
  pathEnv: string | undefined,
): Promise<string | undefined> {
  if (program === "") return "command must not be empty";
  const key = programKey(program, cwd, pathEnv);
  if (startable.has(key)) return undefined;
  const problem = await lookupProblem(program, cwd, pathEnv);
  if (problem === undefined) {
    if (startable.size >= MAX_STARTABLE) startable.clear();
    startable.add(key);
  }
  return problem;
}

async function lookupProblem(program: string, cwd: string, pathEnv: string | undefined): Promise<string | undefined> {
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
