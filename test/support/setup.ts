/**
 * Every test file's set-up (vitest `setupFiles`). A condition is awaited, never timed: every
 * `vi.waitFor` polls until a generous ceiling (WAIT_CEILING_MS), whatever timeout its call
 * site wrote, so a machine at load 25 is slow, not red. The test's own timeout (vitest.config)
 * is the only other limit, and it is far above any healthy run.
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { vi } from "vitest";

export const WAIT_CEILING_MS = 120_000;

const waitFor = vi.waitFor.bind(vi);
const patient: typeof vi.waitFor = (callback, options) => {
  const opts = typeof options === "number" ? { timeout: options } : { ...options };
  opts.timeout = Math.max(opts.timeout ?? 0, WAIT_CEILING_MS);
  return waitFor(callback, opts);
};
vi.waitFor = patient;

// Login shells here may run `pyenv init`, whose rehash waits up to a minute on a lock that a
// shell killed mid-rehash (as many tests kill commands) leaves behind: a second, not a minute.
process.env["PYENV_REHASH_TIMEOUT"] ??= "1";

/**
 * That lock also makes every later login shell print pyenv's complaint into the output a test
 * reads. One older than a minute while no `pyenv-rehash` runs has no owner (a rehash holds it
 * for well under a second): only such a lock, left by a shell a test killed, is removed.
 */
function removeStalePyenvLock(): void {
  const lock = path.join(process.env["PYENV_ROOT"] ?? path.join(homedir(), ".pyenv"), "shims", ".pyenv-shim");
  const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
  if (age < 60_000) return;
  const rehashing = readdirSync("/proc").some((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("pyenv-rehash");
    } catch {
      return false;
    }
  });
  if (!rehashing) rmSync(lock, { force: true });
}
if (process.platform === "linux") removeStalePyenvLock();
