import { execFile } from "node:child_process";
import { cachedLookup } from "./which.js";

const findSetpriv = cachedLookup("setpriv");
let probe: Promise<readonly string[]> | undefined;

/**
 * The argv prefix that makes a command die with this process even when it is killed by SIGKILL
 * (util-linux `setpriv --pdeathsig KILL`), or none where that is not available (not Linux, no
 * setpriv, or one too old for `--pdeathsig`). Probed once. Only the command itself gets the
 * signal: a background grandchild it started in its group survives a SIGKILLed host.
 */
export function parentDeathPrefix(): Promise<readonly string[]> {
  probe ??= (async () => {
    if (process.platform !== "linux") return [];
    const setpriv = await findSetpriv(process.env["PATH"]);
    if (!setpriv) return [];
    const prefix = [setpriv, "--pdeathsig", "KILL", "--"];
    const works = await new Promise<boolean>((resolve) => {
      execFile(setpriv, [...prefix.slice(1), "true"], { timeout: 5_000 }, (err) => {
        resolve(err === null);
      });
    });
    return works ? prefix : [];
  })();
  return probe;
}
