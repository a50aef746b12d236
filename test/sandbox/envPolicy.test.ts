/**
 * The environment policy (DESIGN section 12): which of the host's variables a command sees,
 * in every mode. Unit tests of the filter and its validation, then `env` through the shell
 * handler and `cat /proc/self/environ` through the runtime.
 */
import { realpathSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createToolRouter, createTurnContext, PermissionEngine, ToolCallRuntime } from "../../src/index.js";
import type { EnvironmentPolicy } from "../../src/protocol/index.js";
import { createExecEnvironment, environmentFilter, validateEnvironmentPolicy } from "../../src/sandbox/index.js";
import { text } from "../support/harness.js";
import { describeSandbox, Scratch, shellIn } from "./helpers.js";

describe("environmentFilter", () => {
  const base: NodeJS.ProcessEnv = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    TERM: "xterm",
    FOO_SECRET: "s",
    MY_API_KEY: "k",
    GH_TOKEN: "t",
    github_token: "lower",
    MONKEY: "banana",
    PLAIN: "p",
    "A.B": "dot",
    UNSET: undefined,
  };

  it("by default drops *KEY*, *SECRET*, *TOKEN* case-insensitively and keeps the rest", () => {
    expect(environmentFilter()(base)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
      PLAIN: "p",
      "A.B": "dot",
    });
    // `*KEY*` is a substring match, as in Codex: MONKEY goes too.
    expect(environmentFilter({})(base)).not.toHaveProperty("MONKEY");
  });

  it("drops the other names secrets go by, and URLs with a password, by default (S15)", () => {
    const leaked: NodeJS.ProcessEnv = {
      A3REL_AUTH: "a",
      A3REL_CREDENTIALS: "c",
      A3REL_DB_URL: "postgres://u:pw2@h/db",
      A3REL_PASS: "p",
      A3REL_PASSWORD: "pw",
      db_passwd: "pw",
      A3REL_PAT: "pat",
      SESSION_COOKIE: "sc",
      A3REL_PRIVATE_KEY_PEM: "k",
      SSH_AUTH_SOCK: "/run/user/0/ssh-agent",
      PROXIES: "direct, http://alice:s3cret@proxy.example:8080",
    };
    const kept: NodeJS.ProcessEnv = {
      // Not secrets, though near the patterns: git's author, desktop sessions, a URL without a password.
      GIT_AUTHOR_NAME: "A",
      GIT_AUTHOR_EMAIL: "a@example.com",
      XDG_SESSION_TYPE: "tty",
      DESKTOP_SESSION: "gnome",
      PATTERN: "p",
      BYPASS_CACHE: "1",
      HOMEPAGE: "https://user@example.com/path",
      EMAIL: "me@example.com",
      NOTE: "http://example.com/a:b@c",
    };
    expect(environmentFilter()({ ...leaked, ...kept })).toEqual(kept);
    expect(environmentFilter({ ignoreDefaultExcludes: true })({ ...leaked, ...kept })).toEqual({ ...leaked, ...kept });
    // `set` is the embedder's own word: never judged by its value.
    expect(environmentFilter({ set: { DB: "postgres://u:p@h/db" } })({})).toEqual({ DB: "postgres://u:p@h/db" });
  });

  it("ignoreDefaultExcludes keeps them", () => {
    const env = environmentFilter({ ignoreDefaultExcludes: true })(base);
    expect(env).toMatchObject({ FOO_SECRET: "s", MY_API_KEY: "k", GH_TOKEN: "t", github_token: "lower" });
    expect(env).not.toHaveProperty("UNSET");
  });

  it('inherit "core" keeps the core set only; "none" keeps nothing but set', () => {
    expect(environmentFilter({ inherit: "core" })(base)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
    });
    expect(environmentFilter({ inherit: "none", set: { ONLY: "1" } })(base)).toEqual({ ONLY: "1" });
  });

  it("exclude globs are case-insensitive, `*` and `?` only (a dot is a dot)", () => {
    const env = environmentFilter({ exclude: ["plai?", "path*", "a.b"] })(base);
    expect(env).not.toHaveProperty("PLAIN");
    expect(env).not.toHaveProperty("PATH");
    expect(env).not.toHaveProperty("A.B");
    expect(environmentFilter({ exclude: ["A.?"], ignoreDefaultExcludes: true })({ AXB: "x", "A.C": "y" })).toEqual({
      AXB: "x",
    });
  });

  it("includeOnly keeps the matching names; set is applied last, overrides and survives it", () => {
    const policy: EnvironmentPolicy = {
      includeOnly: ["path", "home", "FOO_*"],
      set: { HOME: "/sandbox", EXTRA: "e", MY_API_KEY: "given" },
    };
    // FOO_SECRET matches includeOnly, but the default excludes still drop it; set survives both.
    expect(environmentFilter(policy)(base)).toEqual({
      PATH: "/usr/bin",
      HOME: "/sandbox",
      EXTRA: "e",
      MY_API_KEY: "given",
    });
    // An empty includeOnly is no filter.
    expect(environmentFilter({ includeOnly: [] })(base)).toHaveProperty("PLAIN", "p");
  });
});

describe("validateEnvironmentPolicy", () => {
  it("accepts a valid policy and undefined", () => {
    const policy = {
      inherit: "core",
      ignoreDefaultExcludes: true,
      exclude: ["A*"],
      includeOnly: ["B"],
      set: { C: "" },
    };
    expect(validateEnvironmentPolicy(policy)).toBe(policy);
    expect(validateEnvironmentPolicy(undefined)).toEqual({});
  });

  it.each([
    [null, "env must be an object"],
    [[], "env must be an object"],
    ["all", "env must be an object"],
    [{ inherits: "all" }, "env.inherits is not a known option"],
    [{ inherit: "some" }, 'env.inherit must be "all", "core" or "none", got "some"'],
    [{ ignoreDefaultExcludes: "yes" }, "env.ignoreDefaultExcludes must be a boolean"],
    [{ exclude: "*KEY*" }, "env.exclude must be a list of non-empty name globs"],
    [{ includeOnly: [""] }, "env.includeOnly must be a list of non-empty name globs"],
    [{ set: ["A=1"] }, "env.set must be a table of names to strings"],
    [{ set: { A: 1 } }, "env.set.A must be a string"],
    [{ set: { "A=B": "1" } }, 'env.set has an invalid variable name or value: "A=B"'],
    [{ set: { A: "x\0y" } }, 'env.set has an invalid variable name or value: "A"'],
  ])("rejects %j: %s", (policy, message) => {
    expect(() => validateEnvironmentPolicy(policy)).toThrow(new TypeError(message));
  });

  it("names the field under the caller's prefix; createExecEnvironment rejects the same way", async () => {
    expect(() => validateEnvironmentPolicy({ inherit: 1 }, "shell_environment_policy")).toThrow(
      'shell_environment_policy.inherit must be "all", "core" or "none", got 1',
    );
    await expect(
      createExecEnvironment({ cwd: process.cwd(), env: { exclude: [3] } as unknown as EnvironmentPolicy }),
    ).rejects.toThrow(new TypeError("env.exclude must be a list of non-empty name globs"));
  });
});

const PARENT = {
  FOO_SECRET: "sbtest-secret-value",
  MY_API_KEY: "sbtest-key-value",
  GH_TOKEN: "sbtest-token-value",
  sbtest_lower_token: "sbtest-lower-value",
  SBTEST_PLAIN: "plain-value",
};
const scratch = new Scratch();
let cwd: string;

beforeAll(async () => {
  cwd = await scratch.inTmp("env");
});
afterAll(() => scratch.cleanup());
beforeEach(() => {
  Object.assign(process.env, PARENT);
});
afterEach(() => {
  for (const name of Object.keys(PARENT)) delete process.env[name];
});

/** The variables `env` prints through the shell handler, by name. */
async function envThroughShell(
  env: Awaited<ReturnType<typeof createExecEnvironment>>,
  argv = ["env"],
): Promise<Map<string, string>> {
  const out = await shellIn(env, cwd, argv);
  const m = /^Exit code: 0\nWall time: [^\n]*\nOutput:\n([\s\S]*)$/.exec(out);
  if (!m) throw new Error(`unexpected output: ${out}`);
  const vars = new Map<string, string>();
  for (const line of m[1]!.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) vars.set(line.slice(0, eq), line.slice(eq + 1));
  }
  // bubblewrap, which gives every command its own PID namespace, sets PWD to the command's
  // directory (as any shell does): that value, and only that one, is not the policy's.
  if (vars.get("PWD") === cwd || vars.get("PWD") === realpathSync(cwd)) vars.delete("PWD");
  return vars;
}

const local = (env?: EnvironmentPolicy) =>
  createExecEnvironment({ cwd, sandbox: { mode: "danger-full-access" }, ...(env && { env }) });

describe("environment policy through the shell handler", () => {
  it("hides the parent's secrets by default; ignoreDefaultExcludes keeps them", async () => {
    const vars = await envThroughShell(await local());
    expect(vars.get("SBTEST_PLAIN")).toBe("plain-value");
    expect(vars.get("PATH")).toBe(process.env["PATH"]);
    for (const name of ["FOO_SECRET", "MY_API_KEY", "GH_TOKEN", "sbtest_lower_token"])
      expect(vars.has(name)).toBe(false);

    const kept = await envThroughShell(await local({ ignoreDefaultExcludes: true }));
    for (const [name, value] of Object.entries(PARENT)) expect(kept.get(name)).toBe(value);
  });

  it('inherit "core" keeps PATH and HOME only; "none" with set gives exactly set', async () => {
    const core = await envThroughShell(await local({ inherit: "core" }));
    expect(core.get("PATH")).toBe(process.env["PATH"]);
    if (process.env["HOME"] !== undefined) expect(core.get("HOME")).toBe(process.env["HOME"]);
    expect(core.has("SBTEST_PLAIN")).toBe(false);

    const none = await envThroughShell(await local({ inherit: "none", set: { PATH: "/usr/bin:/bin", ONLY_ME: "1" } }), [
      "/usr/bin/env",
    ]);
    expect(Object.fromEntries(none)).toEqual({ PATH: "/usr/bin:/bin", ONLY_ME: "1" });
  });

  it("exclude globs are case-insensitive; includeOnly keeps what set adds", async () => {
    const excluded = await envThroughShell(await local({ exclude: ["sbtest_*"] }));
    expect(excluded.has("SBTEST_PLAIN")).toBe(false);
    expect(excluded.has("PATH")).toBe(true);

    const only = await envThroughShell(await local({ includeOnly: ["PATH", "sbtest_p*"], set: { ADDED: "a" } }));
    expect(Object.fromEntries(only)).toEqual({ PATH: process.env["PATH"], SBTEST_PLAIN: "plain-value", ADDED: "a" });
  });

  it("cat /proc/self/environ, a known-safe read run without asking, shows no secret", async () => {
    const router = await createToolRouter({ shell: "shell" });
    const turn = createTurnContext({
      cwd,
      environment: await local(),
      // read_only: only known-safe commands run, with nobody asked.
      permissions: new PermissionEngine({ mode: "read_only" }),
    });
    const runtime = new ToolCallRuntime(router, turn);
    runtime.submit({
      type: "function_call",
      call_id: "environ",
      name: "shell",
      arguments: JSON.stringify({ command: ["cat", "/proc/self/environ"] }),
    });
    const out = (await runtime.drain()).map(text)[0]!;
    expect(out).toMatch(/^Exit code: 0\n/);
    expect(out).toContain("SBTEST_PLAIN=plain-value");
    for (const value of Object.values(PARENT).filter((v) => v !== "plain-value")) expect(out).not.toContain(value);
  });
});

describeSandbox("environment policy inside bubblewrap", () => {
  it("applies to sandboxed commands too", async () => {
    const env = await createExecEnvironment({
      cwd,
      sandbox: { mode: "workspace-write" },
      env: { exclude: ["SBTEST_*"], set: { SET_IN_SANDBOX: "yes" } },
    });
    const vars = await envThroughShell(env);
    expect(vars.get("SET_IN_SANDBOX")).toBe("yes");
    for (const name of [...Object.keys(PARENT)]) expect(vars.has(name)).toBe(false);
  });
});
