import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/cli/config.js";
import { parseSandboxFlag, sandboxPolicy, sessionEnvironment } from "../../src/cli/sandbox.js";
import { loadConfigText, rejectsEachConfig, withTempDir } from "./helpers.js";

describe("sandbox sections in the config", () => {
  it("maps [sandbox] to the camelCase policy; relative roots resolve against the config file's directory", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "conf/toolcall.toml",
        [
          "[sandbox]",
          'mode = "read-only"',
          'writable_roots = ["data", "../shared", "/opt/cache"]',
          "network_access = true",
          'readable_roots = ["./docs"]',
          'allow_unix_sockets = ["/run/user/1000/ssh-agent.sock", "agent.sock"]',
        ].join("\n"),
      );
      expect(config.sandbox).toEqual({
        mode: "read-only",
        writableRoots: [path.join(dir, "conf/data"), path.join(dir, "shared"), "/opt/cache"],
        networkAccess: true,
        readableRoots: [path.join(dir, "conf/docs")],
        allowUnixSockets: ["/run/user/1000/ssh-agent.sock", path.join(dir, "conf/agent.sock")],
      });
      expect("shellEnvironmentPolicy" in config).toBe(false);
    });
  });

  it("reads network_access as a list of domains: the allowlist (JSON configs too)", async () => {
    await withTempDir(async (dir) => {
      const toml = await loadConfigText(
        dir,
        "toolcall.toml",
        '[sandbox]\nnetwork_access = ["Registry.example", "*.github.com"]\n',
      );
      expect(toml.sandbox).toEqual({ allowedDomains: ["registry.example", "*.github.com"] });
      const json = await loadConfigText(dir, "cfg.json", JSON.stringify({ sandbox: { network_access: [] } }));
      expect(json.sandbox).toEqual({ allowedDomains: [] });
      // --network allows every domain: the list gives way.
      expect(sandboxPolicy(toml.sandbox, { network: true })).toEqual({ mode: "workspace-write", networkAccess: true });
      expect(sandboxPolicy(toml.sandbox, {})).toEqual({
        mode: "workspace-write",
        allowedDomains: ["registry.example", "*.github.com"],
      });
    });
  });

  it("reads Codex's sandbox_mode and [sandbox_workspace_write] as the same settings", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "toolcall.toml",
        [
          'sandbox_mode = "workspace-write"',
          "[sandbox_workspace_write]",
          'writable_roots = ["build"]',
          "network_access = true",
        ].join("\n"),
      );
      expect(config.sandbox).toEqual({
        mode: "workspace-write",
        writableRoots: [path.join(dir, "build")],
        networkAccess: true,
      });
    });
  });

  it("accepts a setting given in both places when they agree (roots compared once resolved)", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "toolcall.toml",
        [
          'sandbox_mode = "read-only"',
          "[sandbox]",
          'mode = "read-only"',
          'writable_roots = ["./out"]',
          "[sandbox_workspace_write]",
          'writable_roots = ["out"]',
        ].join("\n"),
      );
      expect(config.sandbox).toEqual({ mode: "read-only", writableRoots: [path.join(dir, "out")] });
    });
  });

  it("maps [shell_environment_policy] with Codex's keys to the EnvironmentPolicy", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "toolcall.toml",
        [
          "[shell_environment_policy]",
          'inherit = "core"',
          "ignore_default_excludes = true",
          'exclude = ["AWS_*", "*_PASSWORD"]',
          'include_only = ["PATH", "HOME", "LC_*"]',
          'set = { CI = "1", "EDITOR" = "true" }',
        ].join("\n"),
      );
      expect(config.shellEnvironmentPolicy).toEqual({
        inherit: "core",
        ignoreDefaultExcludes: true,
        exclude: ["AWS_*", "*_PASSWORD"],
        includeOnly: ["PATH", "HOME", "LC_*"],
        set: { CI: "1", EDITOR: "true" },
      });
      expect("sandbox" in config).toBe(false);
    });
  });

  it("takes the same snake_case keys in JSON", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "cfg.json",
        JSON.stringify({
          sandbox: { mode: "danger-full-access", writable_roots: ["x"] },
          shell_environment_policy: { inherit: "none", set: { A: "b" } },
        }),
      );
      expect(config.sandbox).toEqual({ mode: "danger-full-access", writableRoots: [path.join(dir, "x")] });
      expect(config.shellEnvironmentPolicy).toEqual({ inherit: "none", set: { A: "b" } });
    });
  });

  const bad: Array<[string, string, string, RegExp]> = [
    [
      "bad [sandbox] mode",
      "toolcall.toml",
      '[sandbox]\nmode = "yolo"\n',
      /toolcall\.toml: sandbox\.mode: expected one of "read-only", "workspace-write", "danger-full-access", got string/,
    ],
    [
      "bad sandbox_mode",
      "toolcall.toml",
      "sandbox_mode = true\n",
      /toolcall\.toml: sandbox_mode: expected one of "read-only", "workspace-write", "danger-full-access", got boolean/,
    ],
    [
      "modes that disagree",
      "toolcall.toml",
      'sandbox_mode = "read-only"\n[sandbox]\nmode = "workspace-write"\n',
      /toolcall\.toml: sandbox\.mode and sandbox_mode disagree; set one of them/,
    ],
    [
      "network settings that disagree",
      "toolcall.toml",
      "[sandbox]\nnetwork_access = true\n[sandbox_workspace_write]\nnetwork_access = false\n",
      /toolcall\.toml: sandbox\.network_access and sandbox_workspace_write\.network_access disagree/,
    ],
    [
      "writable roots that disagree",
      "toolcall.toml",
      '[sandbox]\nwritable_roots = ["a"]\n[sandbox_workspace_write]\nwritable_roots = ["b"]\n',
      /toolcall\.toml: sandbox\.writable_roots and sandbox_workspace_write\.writable_roots disagree/,
    ],
    [
      "unknown [sandbox] key",
      "toolcall.toml",
      "[sandbox]\nnetwork = true\n",
      /toolcall\.toml: unknown key sandbox\.network \(known keys: mode, writable_roots, network_access, readable_roots, allow_unix_sockets\)/,
    ],
    [
      "unknown [sandbox_workspace_write] key",
      "toolcall.toml",
      "[sandbox_workspace_write]\nexclude_slash_tmp = true\n",
      /toolcall\.toml: sandbox_workspace_write\.exclude_slash_tmp: expected false \(leaving \/tmp or \$TMPDIR out of the writable roots is not supported\), got boolean true/,
    ],
    [
      "roots not a list",
      "toolcall.toml",
      '[sandbox]\nwritable_roots = "/data"\n',
      /toolcall\.toml: sandbox\.writable_roots: expected array of non-empty strings, got string/,
    ],
    [
      "an empty root",
      "toolcall.toml",
      '[sandbox]\nreadable_roots = [""]\n',
      /toolcall\.toml: sandbox\.readable_roots\[0\]: expected non-empty string, got string ""/,
    ],
    [
      "network_access not a boolean",
      "cfg.json",
      JSON.stringify({ sandbox_workspace_write: { network_access: "yes" } }),
      /cfg\.json: sandbox_workspace_write\.network_access: expected boolean, got string/,
    ],
    [
      "a domain with a scheme",
      "toolcall.toml",
      '[sandbox]\nnetwork_access = ["ok.example", "https://bad.example"]\n',
      /toolcall\.toml: sandbox\.network_access\[1\]: "https:\/\/bad\.example": a domain has no scheme, port or path/,
    ],
    [
      "a wildcard too broad",
      "toolcall.toml",
      '[sandbox]\nnetwork_access = ["*.com"]\n',
      /toolcall\.toml: sandbox\.network_access\[0\]: "\*\.com": a domain needs a dot/,
    ],
    [
      "network_access neither a boolean nor a list",
      "toolcall.toml",
      '[sandbox]\nnetwork_access = "example.com"\n',
      /toolcall\.toml: sandbox\.network_access: expected true, false or a list of domains, got string/,
    ],
    [
      "[sandbox] not a table",
      "toolcall.toml",
      'sandbox = "workspace-write"\n',
      /toolcall\.toml: sandbox: expected table, got string/,
    ],
    [
      "bad inherit",
      "toolcall.toml",
      '[shell_environment_policy]\ninherit = "some"\n',
      /toolcall\.toml: shell_environment_policy\.inherit: expected one of "all", "core", "none", got string/,
    ],
    [
      "unknown [shell_environment_policy] key",
      "toolcall.toml",
      "[shell_environment_policy]\nexperimental_use_profile = true\n",
      /toolcall\.toml: unknown key shell_environment_policy\.experimental_use_profile \(known keys: inherit, ignore_default_excludes, exclude, include_only, set\)/,
    ],
    [
      "camelCase key in JSON",
      "cfg.json",
      JSON.stringify({ shell_environment_policy: { includeOnly: ["PATH"] } }),
      /cfg\.json: unknown key shell_environment_policy\.includeOnly/,
    ],
    [
      "ignore_default_excludes not a boolean",
      "toolcall.toml",
      "[shell_environment_policy]\nignore_default_excludes = 1\n",
      /shell_environment_policy\.ignore_default_excludes: expected boolean, got number/,
    ],
    [
      "exclude not strings",
      "toolcall.toml",
      "[shell_environment_policy]\nexclude = [1]\n",
      /toolcall\.toml: shell_environment_policy\.exclude\[0\]: expected non-empty string, got number 1/,
    ],
    [
      "set not a table",
      "toolcall.toml",
      '[shell_environment_policy]\nset = ["A=1"]\n',
      /toolcall\.toml: shell_environment_policy\.set: expected table, got an array/,
    ],
    [
      "set value not a string",
      "toolcall.toml",
      "[shell_environment_policy]\nset = { DEBUG = 1 }\n",
      /toolcall\.toml: shell_environment_policy\.set\.DEBUG: expected string, got number/,
    ],
    [
      "set name with =",
      "toolcall.toml",
      '[shell_environment_policy]\nset = { "A=B" = "1" }\n',
      /toolcall\.toml: shell_environment_policy\.set: invalid variable name "A=B"/,
    ],
  ];
  rejectsEachConfig(bad);
});

describe("[docker] in the config", () => {
  it("reads image, network (a boolean or a network name), user and host", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "toolcall.toml",
        '[docker]\nimage = "agent:1"\nnetwork = "host"\nuser = "1000:1000"\nhost = "tcp://engine:2375"\n',
      );
      expect(config.docker).toEqual({
        image: "agent:1",
        network: "host",
        user: "1000:1000",
        host: "tcp://engine:2375",
      });
      expect((await loadConfigText(dir, "b.toml", "[docker]\nnetwork = true\n")).docker).toEqual({ network: true });
    });
  });

  it("reads a remote engine's settings: a volume workspace, tls_verify and cert_path", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "toolcall.toml",
        '[docker]\nhost = "remote-ctx"\nworkspace = "volume"\ntls_verify = true\ncert_path = "/etc/certs"\n',
      );
      expect(config.docker).toEqual({
        host: "remote-ctx",
        workspace: "volume",
        tlsVerify: true,
        certPath: "/etc/certs",
      });
    });
  });

  rejectsEachConfig([
    ["[docker] not a table", "toolcall.toml", 'docker = "img"\n', /toolcall\.toml: docker: expected table, got string/],
    [
      "unknown [docker] key",
      "toolcall.toml",
      '[docker]\nimages = "a"\n',
      /toolcall\.toml: unknown key docker\.images \(known keys: image, network, user, host, workspace, tls_verify, cert_path\)/,
    ],
    [
      "[docker] network a number",
      "toolcall.toml",
      "[docker]\nnetwork = 1\n",
      /toolcall\.toml: docker\.network: expected boolean or a non-empty string, got number/,
    ],
    ["[docker] image empty", "toolcall.toml", '[docker]\nimage = ""\n', /docker\.image: expected a non-empty string/],
    ["[docker] workspace unknown", "toolcall.toml", '[docker]\nworkspace = "nfs"\n', /docker\.workspace/],
    ["[docker] tls_verify a string", "toolcall.toml", '[docker]\ntls_verify = "yes"\n', /docker\.tls_verify/],
  ]);

  it("--sandbox and an image are refused together: the container is the boundary", async () => {
    await withTempDir(async (dir) => {
      const err = await sessionEnvironment(dir, { docker: { image: "agent:1" } }, { sandbox: "read-only" }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toBe(
        "--sandbox does not apply to a Docker environment (the container is the boundary)",
      );
    });
  });
});

describe("sandbox flags over the config", () => {
  it("defaults to workspace-write; --sandbox replaces the mode; --network turns network on", () => {
    expect(sandboxPolicy(undefined, {})).toEqual({ mode: "workspace-write" });
    const file = { mode: "read-only" as const, writableRoots: ["/w"], networkAccess: false };
    expect(sandboxPolicy(file, {})).toEqual(file);
    expect(sandboxPolicy(file, { sandbox: "danger-full-access" })).toEqual({ ...file, mode: "danger-full-access" });
    expect(sandboxPolicy(file, { network: true })).toEqual({ ...file, networkAccess: true });
    expect(sandboxPolicy(file, { network: false })).toEqual(file);
  });

  it("checks --sandbox's value, naming the flag and the modes", () => {
    expect(parseSandboxFlag(undefined)).toBeUndefined();
    expect(parseSandboxFlag("read-only")).toBe("read-only");
    expect(() => parseSandboxFlag("workspace_write")).toThrow(
      new ConfigError(
        '--sandbox: expected one of read-only, workspace-write, danger-full-access, got "workspace_write"',
      ),
    );
  });
});
