import { describe, expect, it } from "vitest";
import { Hooks } from "../../src/policy/index.js";
import { loadConfigText, rejectsEachConfig, withTempDir } from "./helpers.js";

const PERMISSIONS_TOML = `
[permissions]
mode = "accept_edits"
allow = ["shell(git status)", "shell(git diff:*)", "read_file"]
ask = ["shell(git push:*)"]
deny = ["shell(rm -rf:*)", "mcp__github__*"]
approval_timeout_ms = 30000
risk_field = true
ask_at_risk = "medium"
`;

const PERMISSIONS = {
  mode: "accept_edits",
  allow: ["shell(git status)", "shell(git diff:*)", "read_file"],
  ask: ["shell(git push:*)"],
  deny: ["shell(rm -rf:*)", "mcp__github__*"],
  approvalTimeoutMs: 30000,
  riskField: true,
  askAtRisk: "medium",
};

const HOOKS_TOML = `
[[hooks.PreToolUse]]
matcher = "Bash|shell"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "./check-command.sh"
timeout = 30

[[hooks.PreToolUse.hooks]]
type = "command"
command = "./audit.sh"

[[hooks.PostToolUse]]

[[hooks.PostToolUse.hooks]]
type = "command"
command = "npx prettier --write ."
`;

const HOOKS = {
  PreToolUse: [
    {
      matcher: "Bash|shell",
      hooks: [
        { type: "command", command: "./check-command.sh", timeout: 30 },
        { type: "command", command: "./audit.sh" },
      ],
    },
  ],
  PostToolUse: [{ hooks: [{ type: "command", command: "npx prettier --write ." }] }],
};

/** A hooks block as it appears in a Claude Code `.claude/settings.json`, pasted verbatim. */
const CLAUDE_SETTINGS_HOOKS = `{
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/check-bash.sh",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '.tool_input.file_path' | xargs npx prettier --write"
          }
        ]
      }
    ]
  }`;

describe("[permissions] and [hooks] in the config", () => {
  it("maps [permissions] to the camelCase policy and [hooks] to the hooks.json shape (TOML)", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(dir, "toolcall.toml", PERMISSIONS_TOML + HOOKS_TOML);
      expect(config.permissions).toEqual(PERMISSIONS);
      expect(config.hooks).toEqual(HOOKS);
      expect(Hooks.from(config.hooks!).hasPre("shell")).toBe(true);
      // `Bash` is Claude Code's name for every shell tool: the matcher takes shell_command too.
      expect(Hooks.from(config.hooks!).hasPre("shell_command")).toBe(true);
      expect(Hooks.from(config.hooks!).hasPre("read_file")).toBe(false);
    });
  });

  it("takes the same shapes in JSON: snake_case permission keys, hooks as they are", async () => {
    await withTempDir(async (dir) => {
      const json = {
        permissions: {
          mode: "accept_edits",
          allow: PERMISSIONS.allow,
          ask: PERMISSIONS.ask,
          deny: PERMISSIONS.deny,
          approval_timeout_ms: 30000,
          risk_field: true,
          ask_at_risk: "medium",
        },
        hooks: HOOKS,
      };
      const config = await loadConfigText(dir, "cfg.json", JSON.stringify(json));
      expect(config.permissions).toEqual(PERMISSIONS);
      expect(config.hooks).toEqual(HOOKS);
    });
  });

  it("accepts a .claude/settings.json hooks block pasted in unchanged", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "cfg.json",
        `{\n  "tools": { "shell": "shell" },\n  "hooks": ${CLAUDE_SETTINGS_HOOKS}\n}`,
      );
      expect(config.hooks).toEqual(JSON.parse(CLAUDE_SETTINGS_HOOKS));
      const hooks = Hooks.from(config.hooks!);
      expect(hooks.hasPre("Bash")).toBe(true);
      expect(hooks.hasPost("MultiEdit")).toBe(true);
      expect(hooks.hasPost("Editor")).toBe(false);
    });
  });

  it("leaves permissions and hooks out when the file has neither; empty sections give empty configs", async () => {
    await withTempDir(async (dir) => {
      const none = await loadConfigText(dir, "a.toml", "[tools]\nread_file = true\n");
      expect("permissions" in none).toBe(false);
      expect("hooks" in none).toBe(false);
      const empty = await loadConfigText(dir, "b.toml", "[permissions]\n[hooks]\n");
      expect(empty.permissions).toEqual({});
      expect(empty.hooks).toEqual({});
    });
  });

  const bad: Array<[string, string, string, RegExp]> = [
    [
      "unknown permission key",
      "toolcall.toml",
      "[permissions]\nmodes = 1\n",
      /unknown key permissions\.modes \(known keys: mode, allow/,
    ],
    [
      "bad mode",
      "toolcall.toml",
      '[permissions]\nmode = "yolo"\n',
      /toolcall\.toml: permissions\.mode: expected one of "default", "accept_edits", "read_only", "bypass", got string/,
    ],
    [
      "rules not strings",
      "toolcall.toml",
      "[permissions]\nallow = [1]\n",
      /toolcall\.toml: permissions\.allow\[0\]: expected string, got number 1/,
    ],
    [
      "rules not an array",
      "cfg.json",
      JSON.stringify({ permissions: { deny: "shell" } }),
      /cfg\.json: permissions\.deny: expected array of strings, got string/,
    ],
    [
      "approval timeout",
      "toolcall.toml",
      "[permissions]\napproval_timeout_ms = 0\n",
      /permissions\.approval_timeout_ms: expected integer in 1\.\.86400000, got number/,
    ],
    ["risk_field", "toolcall.toml", '[permissions]\nrisk_field = "yes"\n', /permissions\.risk_field: expected boolean/],
    [
      "ask_at_risk",
      "toolcall.toml",
      '[permissions]\nask_at_risk = "low"\n',
      /permissions\.ask_at_risk: expected one of "medium", "high"/,
    ],
    [
      "camelCase permission key in JSON",
      "cfg.json",
      JSON.stringify({ permissions: { approvalTimeoutMs: 5 } }),
      /cfg\.json: unknown key permissions\.approvalTimeoutMs/,
    ],
    [
      "permissions not a table",
      "toolcall.toml",
      'permissions = "all"\n',
      /toolcall\.toml: permissions: expected table, got string/,
    ],
    [
      "hook timeout",
      "toolcall.toml",
      '[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "a"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "b"\ntimeout = -1\n',
      /toolcall\.toml: hooks\.PreToolUse\[0\]\.hooks\[1\]\.timeout: expected a positive number/,
    ],
    [
      "unknown hook event",
      "cfg.json",
      JSON.stringify({ hooks: { PreToolUse: [], Stopp: [] } }),
      /cfg\.json: hooks: unknown hook event Stopp \(known: PreToolUse, /,
    ],
    [
      "bad matcher",
      "cfg.json",
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Edit|(", hooks: [] }] } }),
      /cfg\.json: hooks\.PostToolUse\[0\]\.matcher: invalid regular expression "Edit\|\("/,
    ],
    [
      "hook without type",
      "toolcall.toml",
      '[[hooks.PreToolUse]]\nhooks = [{ command = "x" }]\n',
      /toolcall\.toml: hooks\.PreToolUse\[0\]\.hooks\[0\]\.type: expected "command"/,
    ],
    ["hooks not a table", "toolcall.toml", "hooks = [1]\n", /toolcall\.toml: hooks: expected an object, got array/],
  ];
  rejectsEachConfig(bad);
});
