/**
 * Network (DESIGN section 12): a sandboxed command gets its own network namespace unless
 * `networkAccess`; proved by whether a server the test runs on the host's loopback saw a
 * connection.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { describeSandbox, run, Scratch } from "./helpers.js";

const scratch = new Scratch();
let cwd: string;
let server: net.Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  cwd = await scratch.inTmp("net");
  server = net.createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  await scratch.cleanup();
});

/** Opens a TCP connection to the test's server and prints what it answers. */
const connect = (): string[] => ["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`];

describeSandbox("network", () => {
  it("without networkAccess the host's loopback is out of reach", async () => {
    for (const mode of ["workspace-write", "read-only"] as const) {
      const env = await createExecEnvironment({ cwd, sandbox: { mode } });
      const before = connections;
      const result = await run(env, connect(), { cwd });
      expect(result.exitCode).not.toBe(0);
      // The seccomp filter refuses the socket itself (and the empty network namespace would refuse the connection).
      expect(result.output).toContain("Operation not permitted");
      expect(result.output).not.toContain("hello from the host");
      expect(connections).toBe(before);
    }
  });

  it("with networkAccess: true the command connects", async () => {
    const env = await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write", networkAccess: true } });
    const before = connections;
    const result = await run(env, connect(), { cwd });
    expect(result).toEqual({ exitCode: 0, output: "hello from the host\n" });
    expect(connections).toBe(before + 1);
  });
});

describe("network without a sandbox", () => {
  it("danger-full-access is not confined", async () => {
    const env = await createExecEnvironment({ cwd, sandbox: { mode: "danger-full-access" } });
    const before = connections;
    expect(await run(env, connect(), { cwd })).toEqual({ exitCode: 0, output: "hello from the host\n" });
    expect(connections).toBe(before + 1);
  });
});
