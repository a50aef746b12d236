/**
 * Every test file's set-up (vitest `setupFiles`). A condition is awaited, never timed: every
 * `vi.waitFor` polls until a generous ceiling (WAIT_CEILING_MS), whatever timeout its call
 * site wrote, so a machine at load 25 is slow, not red. The test's own timeout (vitest.config)
 * is the only other limit, and it is far above any healthy run.
 */
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
