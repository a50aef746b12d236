/**
 * `node netBridgeMain.js SOCKET PROGRAM [ARGS...]`, run inside bubblewrap: starts the network
 * bridge (netBridge.ts) to the proxy at SOCKET, then PROGRAM with the proxy variables set, its
 * stdio the bridge's own. The bridge passes on the signals it gets and ends as PROGRAM ends: the
 * same exit code, or killed by the same signal.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { startNetworkBridge } from "./netBridge.js";

const FORWARDED = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGWINCH"] as const;

const [socketPath, program, ...args] = process.argv.slice(2);
if (socketPath === undefined || program === undefined) {
  process.stderr.write("usage: netBridgeMain SOCKET PROGRAM [ARGS...]\n");
  process.exit(2);
}
const bridge = await startNetworkBridge(socketPath);
const child = spawn(program, args, { stdio: "inherit", env: { ...process.env, ...bridge.env } });
for (const signal of FORWARDED) process.on(signal, () => child.kill(signal));
child.once("error", (err: NodeJS.ErrnoException) => {
  process.stderr.write(`${program}: ${err.message}\n`);
  process.exit(err.code === "ENOENT" ? 127 : 126);
});
child.once("exit", (code, signal) => {
  bridge.close();
  if (signal === null) process.exit(code ?? 1);
  // Die of the same signal, so whoever waits on the sandbox sees it.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  process.exit(128 + constants.signals[signal]);
});
