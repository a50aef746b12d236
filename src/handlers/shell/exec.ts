import { stat } from "node:fs/promises";
import path from "node:path";
import { FunctionCallError } from "../../protocol/index.js";

/** `workdir` against `cwd`; it must be an existing directory (else the model reads why). */
export async function resolveWorkdir(cwd: string, workdir?: string): Promise<string> {
  const dir = path.resolve(cwd, workdir ?? ".");
  let problem: string | undefined;
  try {
    if (!(await stat(dir)).isDirectory()) problem = `workdir is not a directory: ${dir}`;
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
