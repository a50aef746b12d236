import { mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapInstalled } from "../../src/cli/sandbox.js";
import { collect, jsonLines, ROOT, runCli, spawnCli, withTempDir } from "./helpers.js";

const BWRAP = await bwrapInstalled();
// CI installs bubblewrap: there these tests must run (and fail without it), never skip.
const SKIP = !BWRAP && process.env["CI"] !== "true";
const SKIPPED = SKIP ? " [skipped: bubblewrap (bwrap) is not on PATH; with CI=true these run and fail]" : "";

const REFUSED = "sandbox unavailable: bubblewrap (bwrap) is not installed; install it or use danger-full-access";

function shell(callId: string, command: string[]): string {
  return JSON.stringify({
    type: "function_call",
    call_id: callId,
    name: "shell",
    arguments: JSON.stringify({ command }),
  });
}

/** Runs `toolcall exec ARGS` in `cwd` on these shell calls; the outputs by call id. */
async function exec(
  cwd: string,
  calls: Array<[string, string[]]>,
  args: string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string; output: Map<string, string> }> {
  const input = calls.map(([id, command]) => `${shell(id, command)}\n`).join("");
  const result = await runCli(["exec", ...args], { cwd, input, ...(env && { env }) });
  const output = new Map(jsonLines(result.stdout).map((o) => [String(o["call_id"]), String(o["output"])]));
  return { code: result.code, stderr: result.stderr, output };
}

/**
 * A scratch directory the workspace-write sandbox may not write: neither under os.tmpdir()
 * (always writable there) nor under the test's workspace. Removed afterwards.
 */
async function withOutsideDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const tmp = await realpath(os.tmpdir());
  for (const parent of ["/var/tmp", ROOT, os.homedir()]) {
    const real = await realpath(parent).catch(() => undefined);
    if (real === undefined || real === tmp || real.startsWith(tmp + path.sep)) continue;
    const dir = await mkdtemp(path.join(real, "toolcall-outside-")).catch(() => undefined);
    if (dir === undefined) continue;
    try {
      return await fn(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`no writable directory outside ${tmp} for the sandbox tests`);
}

const exists = (p: string): Promise<boolean> =>
  stat(p).then(
    () => true,
    () => false,
  );

/** Interface names in a /proc/net/dev listing (two header lines, then `name: counters`). */
const interfaces = (text: string): string[] =>
  text
    .split("\n")
    .slice(2)
    .map((l) => l.split(":")[0]?.trim() ?? "")
    .filter((n) => n !== "")
    .sort();

describe.skipIf(SKIP)(`toolcall exec in the sandbox (child process)${SKIPPED}`, () => {
  it("has bubblewrap to test with", () => {
    expect(BWRAP, "the sandbox tests need bubblewrap (bwrap) on PATH").toBe(true);
  });

  it("workspace-write by default: writes the cwd, not outside it; read-only writes nowhere; danger-full-access anywhere", async () => {
    await withTempDir(async (dir) => {
      await withOutsideDir(async (outside) => {
        const calls = (tag: string): Array<[string, string[]]> => [
          ["call_inside", ["touch", path.join(dir, `${tag}.txt`)]],
          ["call_outside", ["touch", path.join(outside, `${tag}.txt`)]],
        ];

        const byDefault = await exec(dir, calls("default"));
        expect(byDefault.code).toBe(0);
        expect(byDefault.stderr).toBe("");
        expect(byDefault.output.get("call_inside")).toMatch(/^Exit code: 0\n/);
        expect(await exists(path.join(dir, "default.txt"))).toBe(true);
        expect(byDefault.output.get("call_outside")).toMatch(/^Exit code: 1\n/);
        expect(byDefault.output.get("call_outside")).toContain("Read-only file system");
        expect(await exists(path.join(outside, "default.txt"))).toBe(false);

        const readOnly = await exec(dir, calls("ro"), ["--sandbox", "read-only"]);
        expect(readOnly.output.get("call_inside")).toContain("Read-only file system");
        expect(readOnly.output.get("call_outside")).toContain("Read-only file system");
        expect(await exists(path.join(dir, "ro.txt"))).toBe(false);

        const full = await exec(dir, calls("full"), ["--sandbox", "danger-full-access"]);
        expect(full.output.get("call_inside")).toMatch(/^Exit code: 0\n/);
        expect(full.output.get("call_outside")).toMatch(/^Exit code: 0\n/);
        expect(await exists(path.join(outside, "full.txt"))).toBe(true);
      });
    });
  });

  it("writable_roots from the config (relative to its directory) may be written; --sandbox overrides its mode", async () => {
    await withTempDir(async (dir) => {
      await withOutsideDir(async (outside) => {
        // The config lives outside the workspace: its "." is that directory, not the cwd.
        const config = path.join(outside, "toolcall.toml");
        await writeFile(config, 'sandbox_mode = "read-only"\n[sandbox_workspace_write]\nwritable_roots = ["."]\n');
        const calls: Array<[string, string[]]> = [["call_root", ["touch", path.join(outside, "root.txt")]]];

        const asConfigured = await exec(dir, calls, ["--config", config]);
        expect(asConfigured.output.get("call_root")).toContain("Read-only file system");

        const workspaceWrite = await exec(dir, calls, ["--config", config, "--sandbox", "workspace-write"]);
        expect(workspaceWrite.output.get("call_root")).toMatch(/^Exit code: 0\n/);
        expect(await exists(path.join(outside, "root.txt"))).toBe(true);
      });
    });
  });

  it("no network by default (loopback only); --network gives sandboxed commands the host's interfaces", async () => {
    await withTempDir(async (dir) => {
      const host = interfaces(await readFile("/proc/net/dev", "utf8"));
      const calls: Array<[string, string[]]> = [["call_net", ["cat", "/proc/net/dev"]]];
      const listed = (output: string | undefined): string[] => interfaces((output ?? "").split("Output:\n")[1] ?? "");

      const offline = await exec(dir, calls);
      expect(offline.output.get("call_net")).toMatch(/^Exit code: 0\n/);
      expect(listed(offline.output.get("call_net"))).toEqual(["lo"]);

      const online = await exec(dir, calls, ["--network"]);
      expect(listed(online.output.get("call_net"))).toEqual(host);
    });
  });

  it("network_access as a list: the bundled bridge sets the proxy variables, and a domain not listed is refused", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "toolcall.toml"), '[sandbox]\nnetwork_access = ["allowed.invalid"]\n');
      const client = path.join(ROOT, "test/sandbox/fixtures/proxyClient.mjs");
      const { output } = await exec(dir, [
        ["call_env", ["sh", "-c", "echo $ALL_PROXY"]],
        ["call_other", [process.execPath, client, "connect", "other.invalid", "443"]],
      ]);
      expect(output.get("call_env")).toMatch(/^Exit code: 0\n[^]*socks5h:\/\/127\.0\.0\.1:\d+\n$/);
      expect(output.get("call_other")).toMatch(/^Exit code: 1\n/);
      expect(output.get("call_other")).toContain("network access to other.invalid is not allowed by the sandbox");
    });
  });

  it("[shell_environment_policy]: set reaches the command, secrets and excluded names in the parent env do not", async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        path.join(dir, "toolcall.toml"),
        '[shell_environment_policy]\nexclude = ["DROPPED_*"]\nset = { TOOLCALL_GREETING = "hi there" }\n',
      );
      const script = "env | grep -E '^(TOOLCALL_GREETING|MY_API_KEY|PLAIN_VAR|DROPPED_VAR)=' | sort";
      const result = await exec(dir, [["call_env", ["sh", "-c", script]]], [], {
        MY_API_KEY: "sk-secret",
        PLAIN_VAR: "visible",
        DROPPED_VAR: "excluded",
      });
      expect(result.code).toBe(0);
      const out = result.output.get("call_env") ?? "";
      expect(out).toMatch(/^Exit code: 0\n/);
      expect(out.split("Output:\n")[1]).toBe("PLAIN_VAR=visible\nTOOLCALL_GREETING=hi there\n");
      expect(out).not.toContain("sk-secret");
    });
  });
});

describe("sandbox flags and warnings (child process)", () => {
  it("--sandbox with a bad value exits 2 naming the flag and the modes (exec, serve-mcp, demo); tools takes no --sandbox", async () => {
    await withTempDir(async (dir) => {
      const results = await Promise.all([
        runCli(["exec", "--sandbox", "bogus"], { cwd: dir }),
        runCli(["serve-mcp", "--sandbox", "bogus"], { cwd: dir }),
        runCli(["demo", "--sandbox", "bogus"], { cwd: dir }),
      ]);
      for (const [name, r] of [
        ["exec", results[0]],
        ["serve-mcp", results[1]],
        ["demo", results[2]],
      ] as const) {
        expect(r.code).toBe(2);
        expect(r.stdout).toBe("");
        expect(r.stderr).toBe(
          `toolcall ${name}: --sandbox: expected one of read-only, workspace-write, danger-full-access, got "bogus"\n`,
        );
      }
      const tools = await runCli(["tools", "--sandbox", "read-only"], { cwd: dir });
      expect(tools.code).toBe(2);
      expect(tools.stderr).toMatch(/Unknown option '--sandbox'/);
    });
  });

  it("--docker-image: exits 2 with one clear line when the docker CLI is missing, with --sandbox, or with an empty image", async () => {
    await withTempDir(async (dir) => {
      const noDocker = { PATH: path.join(dir, "no-such-bin") };
      const results = await Promise.all([
        runCli(["exec", "--docker-image", "agent:1"], { cwd: dir, env: noDocker }),
        runCli(["serve-mcp", "--docker-image", "agent:1"], { cwd: dir, env: noDocker }),
        runCli(["exec", "--docker-image", "agent:1", "--sandbox", "read-only"], { cwd: dir }),
        runCli(["exec", "--docker-image="], { cwd: dir }),
      ]);
      expect(results.map((r) => [r.code, r.stdout, r.stderr])).toEqual([
        [2, "", "toolcall exec: docker: the docker CLI is not on PATH (install docker.io or docker-ce-cli)\n"],
        [2, "", "toolcall serve-mcp: docker: the docker CLI is not on PATH (install docker.io or docker-ce-cli)\n"],
        [2, "", "toolcall exec: --sandbox does not apply to a Docker environment (the container is the boundary)\n"],
        [2, "", 'toolcall exec: --docker-image: expected an image name, got ""\n'],
      ]);
    });
  });

  it("sandboxed without bubblewrap: one warning at start-up, and every command answers the refusal", async () => {
    await withTempDir(async (dir) => {
      // An empty PATH hides bwrap; the CLI itself starts by absolute path.
      const env = { PATH: path.join(dir, "no-such-bin") };
      const warning =
        "toolcall exec: warning: sandbox mode workspace-write needs bubblewrap (bwrap), which is not on PATH; " +
        "every command will be refused (install bubblewrap or use --sandbox danger-full-access)\n";
      const result = await exec(
        dir,
        [
          ["call_a", ["touch", "a.txt"]],
          ["call_b", ["/bin/echo", "hello"]],
        ],
        [],
        env,
      );
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(warning);
      expect(result.output.get("call_a")).toBe(REFUSED);
      expect(result.output.get("call_b")).toBe(REFUSED);
      expect(await exists(path.join(dir, "a.txt"))).toBe(false);

      // Full access needs no bubblewrap: no warning, the command runs.
      const full = await exec(dir, [["call_c", ["/bin/echo", "hello"]]], ["--sandbox", "danger-full-access"], env);
      expect(full.stderr).toBe("");
      expect(full.output.get("call_c")).toMatch(/Output:\nhello\n/);

      // serve-mcp warns the same way before it serves.
      const child = spawnCli(["serve-mcp", "--http", "0", "--sandbox", "read-only"], { cwd: dir, env });
      const done = collect(child);
      let stderr = "";
      await new Promise<void>((resolve, reject) => {
        child.stderr?.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes("listening on")) resolve();
        });
        child.on("exit", () => {
          reject(new Error(`serve-mcp exited: ${stderr}`));
        });
      });
      child.kill("SIGTERM");
      expect((await done).code).toBe(0);
      expect(stderr.split("\n")[0]).toBe(
        "toolcall serve-mcp: warning: sandbox mode read-only needs bubblewrap (bwrap), which is not on PATH; " +
          "every command will be refused (install bubblewrap or use --sandbox danger-full-access)",
      );
    });
  });

  it("--help lists the sandbox flags and config sections", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--sandbox MODE\s+read-only \| workspace-write \| danger-full-access/);
    expect(stdout).toMatch(/--network\s+let sandboxed commands use the network/);
    for (const section of ["[sandbox]", "sandbox_mode", "[sandbox_workspace_write]", "[shell_environment_policy]"]) {
      expect(stdout).toContain(section);
    }
    expect(stdout).toMatch(/writable_roots, network_access, readable_roots, allow_unix_sockets/);
    expect(stdout).toMatch(/inherit = "all" \| "core" \| "none", ignore_default_excludes, exclude,\s+include_only/);
  });
});
