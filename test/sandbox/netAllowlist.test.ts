/**
 * Network by domain (DESIGN section 12, "Network allowlist"), with real bubblewrap: two HTTP
 * servers on the host's 127.0.0.1, reached under the names allowed.test and other.test through
 * the environment's resolver. Inside the sandbox only loopback exists; the proxy variables
 * lead to the bridge, the bridge to the host's proxy, which lets allowed.test through.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import http from "node:http";
import type net from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  type ApprovalRequest,
  type ToolEvent,
} from "../../src/index.js";
import { findExecutable } from "../../src/process/index.js";
import type { ExecEnvironment } from "../../src/protocol/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { text } from "../support/harness.js";
import { describeRequiring, describeSandbox, run, Scratch, shellIn } from "./helpers.js";

const CLIENT = fileURLToPath(new URL("./fixtures/proxyClient.mjs", import.meta.url));
const DENIED = "network access to other.test is not allowed by the sandbox";
const CURL = await findExecutable("curl", process.env["PATH"]);

const scratch = new Scratch();
let cwd: string;
const servers: http.Server[] = [];
const ports: Record<string, number> = {};
const hits: Record<string, number> = { allowed: 0, other: 0 };
const environments: ExecEnvironment[] = [];

async function serve(name: string): Promise<void> {
  const server = http.createServer((_req, res) => {
    hits[name] = (hits[name] ?? 0) + 1;
    res.end(`hello from ${name}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  ports[name] = (server.address() as net.AddressInfo).port;
}

/** An environment allowing `allowedDomains`, every name resolved to the host's loopback. */
async function allowing(allowedDomains: string[], mode: "workspace-write" | "read-only" = "workspace-write") {
  const env = await createExecEnvironment({
    cwd,
    sandbox: { mode, allowedDomains },
    resolveHost: () => "127.0.0.1",
  });
  environments.push(env);
  return env;
}

const client = (how: string, name: string): string[] => [
  process.execPath,
  CLIENT,
  how,
  `${name}.test`,
  String(ports[name]),
];

/** Processes whose command line names `needle`. */
async function processesNaming(needle: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(needle)) found.push(Number(entry));
  }
  return found;
}

beforeAll(async () => {
  cwd = await scratch.inTmp("allowlist");
  await serve("allowed");
  await serve("other");
});
afterAll(async () => {
  for (const env of environments) await env.close?.();
  for (const server of servers) server.close();
  await scratch.cleanup();
});

describeSandbox("network allowlist", () => {
  it.each(["http", "connect", "socks"])("%s: the allowed name is reached, the other refused", async (how) => {
    const env = await allowing(["allowed.test"]);
    const before = { ...hits };
    expect(await run(env, client(how, "allowed"), { cwd })).toEqual({ exitCode: 0, output: "hello from allowed\n" });
    const refused = await run(env, client(how, "other"), { cwd });
    expect(refused.exitCode).toBe(1);
    // The bridge writes the proxy's refusal to the command's stderr, whatever the client shows.
    expect(refused.output).toContain(`${DENIED}\n`);
    expect(refused.output).toContain("refused:");
    expect(hits).toEqual({ allowed: (before.allowed ?? 0) + 1, other: before.other });
  });

  it("read-only mode too; a wildcard allows the names below, not the name itself", async () => {
    const env = await allowing(["*.allowed.test"], "read-only");
    const below = await run(env, [process.execPath, CLIENT, "connect", "api.allowed.test", String(ports["allowed"])], {
      cwd,
    });
    expect(below).toEqual({ exitCode: 0, output: "hello from allowed\n" });
    const itself = await run(env, client("connect", "allowed"), { cwd });
    expect(itself.output).toContain("network access to allowed.test is not allowed by the sandbox");
  });

  it("the command gets the proxy variables; direct connections still find no network", async () => {
    const env = await allowing(["allowed.test"]);
    const out = await run(env, ["sh", "-c", "env | grep -i _proxy= | sort"], { cwd });
    expect(out.output).toMatch(/^ALL_PROXY=socks5h:\/\/127\.0\.0\.1:\d+$/m);
    expect(out.output).toMatch(/^HTTPS_PROXY=http:\/\/127\.0\.0\.1:\d+$/m);
    expect(out.output).toMatch(/^HTTP_PROXY=http:\/\/127\.0\.0\.1:\d+$/m);
    expect(out.output).toMatch(/^https_proxy=/m);
    expect(out.output).toMatch(/^NO_PROXY=localhost,127\.0\.0\.1/m);
    const direct = await run(env, ["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${ports["allowed"]}`], { cwd });
    expect(direct.exitCode).not.toBe(0);
    expect(direct.output).toContain("Connection refused");
  });

  it("exit codes and signals pass through the bridge as without it", async () => {
    const plain = await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } });
    const env = await allowing(["allowed.test"]);
    for (const argv of [
      ["sh", "-c", "exit 7"],
      ["sh", "-c", "kill -TERM $$"],
      ["sh", "-c", "echo out; echo err >&2; exit 3"],
    ]) {
      expect(await run(env, argv, { cwd })).toEqual(await run(plain, argv, { cwd }));
    }
  });

  it("the refusal reaches the model's output", async () => {
    const env = await allowing(["allowed.test"]);
    const output = await shellIn(env, cwd, client("connect", "other"));
    expect(output).toMatch(/^Exit code: 1\n/);
    expect(output).toContain(DENIED);
  });

  it("nothing is left running, and close() removes the socket", async () => {
    const env = await allowing(["allowed.test"]);
    await run(env, ["sh", "-c", "sleep 30 & echo started"], { cwd });
    // The bridge's command line names the proxy's socket.
    const args = (await run(env, ["sh", "-c", "ps -o args= -p $PPID"], { cwd })).output.trim().split(" ");
    const socket = args.find((a) => a.endsWith("/proxy.sock")) ?? "";
    expect(socket).not.toBe("");
    expect(existsSync(socket)).toBe(true);
    expect(await processesNaming(socket)).toEqual([]);
    await env.close?.();
    expect(existsSync(socket)).toBe(false);
    await expect(run(env, ["true"], { cwd })).rejects.toThrow(/network proxy unavailable: the environment is closed/);
  });
});

describeRequiring(CURL === null ? "curl is not installed" : undefined, "network allowlist with curl", () => {
  describeSandbox("curl", () => {
    it("reaches the allowed name by HTTP, CONNECT and SOCKS5; the refusal is in its output", async () => {
      const env = await allowing(["allowed.test"]);
      const a = `allowed.test:${ports["allowed"]}`;
      const o = `other.test:${ports["other"]}`;
      for (const flags of ["", "-p", '-x "$ALL_PROXY"']) {
        expect(await run(env, ["sh", "-c", `curl -sS ${flags} http://${a}/`], { cwd })).toEqual({
          exitCode: 0,
          output: "hello from allowed\n",
        });
        const refused = await run(env, ["sh", "-c", `curl -sS ${flags} http://${o}/`], { cwd });
        expect(refused.output).toContain(DENIED);
      }
    });
  });
});

describeSandbox("a refused domain asked as an escalation", () => {
  const asked: ApprovalRequest[] = [];
  let n = 0;

  async function call(
    env: ExecEnvironment,
    answer: "allow" | "deny",
  ): Promise<{ output: string; events: ToolEvent[] }> {
    const permissions = new PermissionEngine({
      mode: "default",
      allow: ["shell"],
      approve: (req) => {
        asked.push(req);
        return Promise.resolve({ decision: answer });
      },
    });
    const events: ToolEvent[] = [];
    const turn = createTurnContext({ cwd, environment: env, permissions, onEvent: (e) => events.push(e) });
    const runtime = new ToolCallRuntime(await createToolRouter({ shell: "shell" }), turn);
    runtime.submit({
      type: "function_call",
      call_id: `n${++n}`,
      name: "shell",
      arguments: JSON.stringify({ command: client("connect", "other") }),
    });
    return { output: (await runtime.drain()).map(text)[0] ?? "", events };
  }
  const runs = (events: ToolEvent[]): number => events.filter((e) => e.type === "exec_command_begin").length;

  it("on deny the refusal stands; on allow the domain is added for the session and the command runs again sandboxed", async () => {
    const env = await allowing(["allowed.test"]);
    const denied = await call(env, "deny");
    expect(asked.map((r) => [r.kind, r.reason])).toEqual([
      [
        "sandbox_escalation",
        "network access to other.test is not allowed by the sandbox; allow it for this session and run the command again?",
      ],
    ]);
    expect(denied.output).toContain(DENIED);
    expect(runs(denied.events)).toBe(1);
    expect(env.sandbox.allowedDomains).toEqual(["allowed.test"]);

    const allowed = await call(env, "allow");
    expect(asked).toHaveLength(2);
    expect(allowed.output).toMatch(/^Exit code: 0\n/);
    expect(allowed.output).toContain("hello from other");
    expect(runs(allowed.events)).toBe(2);
    expect(env.sandbox.allowedDomains).toEqual(["allowed.test", "other.test"]);

    // Allowed for the session: the next call is not asked again.
    const again = await call(env, "deny");
    expect(asked).toHaveLength(2);
    expect(again.output).toContain("hello from other");
  });
});
