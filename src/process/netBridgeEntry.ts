import path from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
/** Compiled (dist/process, or the CLI's bundle in dist/bin) or the TypeScript source run through tsx (the tests). */
const FROM_SOURCE = here.endsWith(".ts");

/** The bridge's entry (netBridgeMain), beside this file in every layout. */
export const NET_BRIDGE_ENTRY = path.join(path.dirname(here), FROM_SOURCE ? "netBridgeMain.ts" : "netBridgeMain.js");

/** The argv prefix that runs a command under the bridge to the proxy at `socketPath` (the command's argv follows). */
export function netBridgeArgv(socketPath: string): string[] {
  const tsx = FROM_SOURCE ? ["--import", import.meta.resolve("tsx")] : [];
  return [process.execPath, ...tsx, NET_BRIDGE_ENTRY, socketPath];
}
