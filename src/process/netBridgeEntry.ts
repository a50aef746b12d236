import path from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
/** Compiled (dist/process, or the CLI's bundle in dist/bin) or the TypeScript source run through tsx (the tests). */
const FROM_SOURCE = here.endsWith(".ts");

/** The bridge's entry (netBridgeMain), beside this file in every layout. */
export const NET_BRIDGE_ENTRY = path.join(path.dirname(here), FROM_SOURCE ? "netBridgeMain.ts" : "netBridgeMain.js");

/** The argv prefix that runs a command under the bridge to the proxy at `socketPath` (the command's argv follows). */
export function netBridgeArgv(socketPath: string): string[] {
  // From source, tsx compiles the bridge; its cache would go to the sandbox's /tmp, read-only under `read-only`.
  const tsx = FROM_SOURCE
    ? ["env", "TSX_DISABLE_CACHE=1", process.execPath, "--import", import.meta.resolve("tsx")]
    : [];
  return FROM_SOURCE ? [...tsx, NET_BRIDGE_ENTRY, socketPath] : [process.execPath, NET_BRIDGE_ENTRY, socketPath];
}
