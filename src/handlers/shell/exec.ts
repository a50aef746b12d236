import { statSync } from "node:fs";
import path from "node:path";
import { FunctionCallError, type FileOps } from "../../protocol/index.js";
import { localFileOps } from "../../sandbox/index.js";

/**
 * `workdir` against `cwd`; it must be an existing directory (else the model reads why).
 * Synchronous: the spawn that follows blocks the event loop for its fork and exec anyway, and
 * an asynchronous stat's trip through the thread pool cost a short command about 0.1 ms.
 */
export function resolveWorkdir(cwd: string, workdir?: string): string {
  const dir = path.resolve(cwd, workdir ?? ".");
  let problem: string | undefined;
  try {
    if (!statSync(dir).isDirectory()) problem = `workdir is not a directory: ${dir}`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problem =
      code === "ENOENT" ? `workdir does not exist: ${dir}` : `workdir is not accessible: ${dir} (${code ?? "error"})`;
  }
  if (problem !== undefined) throw FunctionCallError.respondToModel(problem);
  return dir;
}

/**
 * `resolveWorkdir`, and where the host has no such directory, the environment's own answer:
 * a workspace that lives in a container (Docker `volume`) is not on the host at all.
 */
export async function resolveWorkdirIn(files: FileOps, cwd: string, workdir?: string): Promise<string> {
  try {
    return resolveWorkdir(cwd, workdir);
  } catch (err) {
    if (files === localFileOps) throw err;
    const dir = path.resolve(cwd, workdir ?? ".");
    let kind: string;
    try {
      kind = (await files.stat(dir)).kind;
    } catch (statErr) {
      const code = (statErr as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") throw err;
      return dir; // the environment cannot say (its file tools are unavailable): its spawn will
    }
    if (kind !== "directory") throw err;
    return dir;
  }
}

/** The user's shell: `$SHELL`, else `/bin/bash`. */
export function userShell(env: NodeJS.ProcessEnv = process.env): string {
  const shell = env["SHELL"];
  return shell !== undefined && shell.trim() !== "" ? shell : "/bin/bash";
}
