import { quote } from "shell-quote";
import { cachedLookup } from "../process/index.js";
import { FunctionCallError } from "../protocol/index.js";

const findScript = cachedLookup("script");

/**
 * `argv` run on a pseudo-terminal by util-linux `script` (no native module to build: `script`
 * ships with every Debian-like system). `script -c` hands its command to `$SHELL -c`, so the
 * command line is POSIX sh: it sets a terminal size (a PTY starts at 0x0, which breaks
 * full-screen programs) and restores the caller's `SHELL` before exec'ing the command.
 */
export async function ptyArgv(argv: readonly string[], env: Record<string, string>): Promise<string[]> {
  const script = await findScript(process.env["PATH"]);
  if (!script) {
    throw FunctionCallError.respondToModel(
      "tty is unavailable: util-linux `script` is not installed; run the command without tty",
    );
  }
  const shell = env["SHELL"];
  const restore = shell === undefined ? "unset SHELL;" : `SHELL=${quote([shell])};`;
  const line = `stty rows 24 cols 80 2>/dev/null; ${restore} exec ${quote([...argv])}`;
  return [script, "-qfec", line, "/dev/null"];
}
