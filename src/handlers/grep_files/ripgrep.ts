import { FunctionCallError, type ExecEnvironment } from "../../protocol/index.js";
import { cachedLookup, runCommand } from "../../sandbox/index.js";
import { errorMessage, MAX_TIMER_MS } from "../../util/index.js";
import type { SearchRequest } from "./fallback.js";
import { ALWAYS_SKIPPED_DIRS } from "./walk.js";

const STDERR_CAP = 8 * 1024;

/** The `rg` executable on `PATH` (default the host's), or null; cached per `PATH` value. */
const lookup = cachedLookup("rg");
export const findRipgrep = (pathEnv: string | undefined = process.env["PATH"]): Promise<string | null> =>
  lookup(pathEnv);

/** The exit code for a program not found (rg never uses it): rg is not where the environment runs commands. */
const NOT_FOUND_EXIT_CODE = 127;

/**
 * Every line (a path) that `rg ARGS -- ROOT` prints, run through the turn's environment (its
 * sandbox and environment policy); `signal` kills rg. Exit 1 (nothing found) is an empty list.
 * Undefined when the environment has no `rg` at the host's path (a container whose image lacks
 * it): the caller then walks the files itself, on the host, where the workspace is.
 */
export async function ripgrepPaths(
  env: ExecEnvironment,
  rg: string,
  args: string[],
  root: string,
  signal: AbortSignal,
  cwd: string,
): Promise<string[] | undefined> {
  const results: string[] = [];
  let partial = "";
  let stderr = "";
  const decoder = { out: new TextDecoder(), err: new TextDecoder() };
  for (const dir of ALWAYS_SKIPPED_DIRS) args.push("--glob", `!${dir}`);
  // `root` is absolute, so rg prints absolute paths whatever its working directory.
  const run = await runCommand(
    env,
    { argv: [rg, ...args, "--no-messages", "--", root], cwd },
    {
      // The search's deadline is the request's signal.
      timeoutMs: MAX_TIMER_MS,
      signal,
      killGraceMs: 0,
      onOutput: (stream, chunk) => {
        if (stream === "stderr") {
          if (stderr.length < STDERR_CAP) stderr += decoder.err.decode(chunk, { stream: true }).slice(0, STDERR_CAP);
          return;
        }
        const lines = (partial + decoder.out.decode(chunk, { stream: true })).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) if (line !== "") results.push(line);
      },
    },
  ).catch((err: unknown) => {
    throw FunctionCallError.respondToModel(
      `failed to launch ripgrep at \`${rg}\`: ${errorMessage(err)}. Ensure ripgrep is installed and on PATH.`,
    );
  });
  if (run.aborted) throw signal.reason;
  partial += decoder.out.decode();
  if (partial !== "") results.push(partial);
  // Exit 2 with matches: some files could not be read; the matches still stand.
  if (run.exitCode === 0 || (run.exitCode === 2 && results.length > 0)) return results;
  if (run.exitCode === 1) return [];
  if (run.exitCode === NOT_FOUND_EXIT_CODE && results.length === 0) return undefined;
  throw FunctionCallError.respondToModel(`rg failed: ${stderr.trim() || `exit code ${String(run.exitCode)}`}`);
}

/** Every path `rg --files-with-matches` prints, as Codex runs it but unsorted. */
export function runRipgrep(
  env: ExecEnvironment,
  rg: string,
  req: SearchRequest,
  cwd: string,
): Promise<string[] | undefined> {
  const args = ["--files-with-matches", "--regexp", req.pattern];
  if (req.include !== undefined) args.push("--glob", req.include);
  return ripgrepPaths(env, rg, args, req.root, req.signal, cwd);
}
