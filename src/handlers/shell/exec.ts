import { statSync } from "node:fs";
import path from "node:path";
import { FunctionCallError } from "../../protocol/index.js";

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

/** The user's shell: `$SHELL`, else `/bin/bash`. */
export function userShell(env: NodeJS.ProcessEnv = process.env): string {
  const shell = env["SHELL"];
  return shell !== undefined && shell.trim() !== "" ? shell : "/bin/bash";
}
