import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { FunctionCallError } from "../../protocol/index.js";
import { ALWAYS_SKIPPED_DIRS, type SearchRequest } from "./fallback.js";

const STDERR_CAP = 8 * 1024;
const lookups = new Map<string, Promise<string | null>>();

/** The `rg` executable on `PATH`, or null; cached per `PATH` value. */
export function findRipgrep(pathEnv: string = process.env["PATH"] ?? ""): Promise<string | null> {
  let found = lookups.get(pathEnv);
  if (!found) {
    const names = process.platform === "win32" ? ["rg.exe"] : ["rg"];
    found = (async () => {
      for (const dir of pathEnv.split(delimiter).filter(Boolean)) {
        for (const name of names) {
          const candidate = join(dir, name);
          if (
            await access(candidate, constants.X_OK).then(
              () => true,
              () => false,
            )
          )
            return candidate;
        }
      }
      return null;
    })();
    lookups.set(pathEnv, found);
  }
  return found;
}

/** Every path `rg --files-with-matches` prints, as Codex runs it but unsorted. The signal kills rg. */
export function runRipgrep(rg: string, req: SearchRequest): Promise<string[]> {
  const args = ["--files-with-matches", "--regexp", req.pattern, "--no-messages"];
  if (req.include !== undefined) args.push("--glob", req.include);
  for (const dir of ALWAYS_SKIPPED_DIRS) args.push("--glob", `!${dir}`);
  args.push("--", req.root);

  return new Promise((resolve, reject) => {
    // `req.root` is absolute, so rg prints absolute paths whatever its working directory.
    const child = spawn(rg, args, { stdio: ["ignore", "pipe", "pipe"] });
    const results: string[] = [];
    let partial = "";
    let stderr = "";
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      req.signal.removeEventListener("abort", onAbort);
      outcome();
    };
    const onAbort = (): void => {
      child.kill("SIGKILL");
      finish(() => {
        reject(req.signal.reason);
      });
    };
    req.signal.addEventListener("abort", onAbort, { once: true });
    if (req.signal.aborted) onAbort();

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line !== "") results.push(line);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < STDERR_CAP) stderr += chunk.slice(0, STDERR_CAP - stderr.length);
    });
    child.on("error", (err) => {
      finish(() => {
        reject(
          FunctionCallError.respondToModel(
            `failed to launch ripgrep at \`${rg}\`: ${err.message}. Ensure ripgrep is installed and on PATH.`,
          ),
        );
      });
    });
    child.on("close", (code) => {
      finish(() => {
        if (partial !== "") results.push(partial);
        // Exit 2 with matches: some files could not be read; the matches still stand.
        if (code === 0 || (code === 2 && results.length > 0)) resolve(results);
        else if (code === 1) resolve([]);
        else reject(FunctionCallError.respondToModel(`rg failed: ${stderr.trim() || `exit code ${String(code)}`}`));
      });
    });
  });
}
