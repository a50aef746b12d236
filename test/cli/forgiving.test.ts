import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, loadConfigText, rejectsEachConfig, runCli, withTempDir } from "./helpers.js";

const fn = (callId: string, name: string, args: string): string =>
  JSON.stringify({ type: "function_call", call_id: callId, name, arguments: args });

describe("toolcall.toml: repair, loop_limit and [quotas] (DESIGN section 18)", () => {
  it("reads them into the tools config", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "toolcall.toml",
        '[tools]\nrepair = false\nloop_limit = 3\n\n[quotas]\n"mcp__github__*" = { per_turn = 20, per_session = 200 }\nshell = { per_turn = 100 }\n',
      );
      expect(config.tools).toMatchObject({
        repair: false,
        loopLimit: 3,
        quotas: { "mcp__github__*": { perTurn: 20, perSession: 200 }, shell: { perTurn: 100 } },
      });
    });
  });

  it("takes the same keys in the JSON form", async () => {
    await withTempDir(async (dir) => {
      const config = await loadConfigText(
        dir,
        "c.json",
        '{"tools": {"repair": true}, "quotas": {"shell": {"per_session": 2}}}',
      );
      expect(config.tools).toMatchObject({ repair: true, quotas: { shell: { perSession: 2 } } });
    });
  });

  rejectsEachConfig([
    ["a repair that is not a boolean", "toolcall.toml", '[tools]\nrepair = "yes"\n', /tools\.repair: expected boolean/],
    ["a negative loop_limit", "toolcall.toml", "[tools]\nloop_limit = -1\n", /tools\.loop_limit/],
    [
      "a quota that is not a table",
      "toolcall.toml",
      "[quotas]\nshell = 3\n",
      /quotas\.shell: expected table, got number/,
    ],
    [
      "an unknown quota key",
      "toolcall.toml",
      "[quotas]\nshell = { perTurn = 3 }\n",
      /unknown key quotas\.shell\.perTurn/,
    ],
    ["a fractional quota", "toolcall.toml", "[quotas]\nshell = { per_turn = 1.5 }\n", /quotas\.shell\.per_turn/],
  ]);
});

describe("toolcall exec: repair, quotas and --usage (child process)", () => {
  it("repairs arguments, refuses past a quota and prints the usage table on stderr", async () => {
    await withTempDir(async (dir) => {
      await writeFile(path.join(dir, "a.txt"), "alpha\nbeta\n");
      await writeFile(
        path.join(dir, "toolcall.toml"),
        "[tools]\nshell = false\n\n[quotas]\nread_file = { per_turn = 2 }\n",
      );
      const file = path.join(dir, "a.txt");
      const input = [
        fn("c1", "read_file", `{'file_path': ${JSON.stringify(file)},}`),
        fn("c2", "Read-File", JSON.stringify({ file_path: file })),
        fn("c3", "read_file", JSON.stringify({ file_path: file, offset: "2" })),
        fn("c4", "read_file", JSON.stringify({ file_path: file })),
      ].join("\n");
      const result = await runCli(["exec", "--usage"], { cwd: dir, input });
      expect(result.code).toBe(0);
      expect(jsonLines(result.stdout).map((o) => o["output"])).toEqual([
        "note: arguments were repaired: removed a trailing comma; read single-quoted strings as JSON strings\nL1: alpha\nL2: beta",
        "unsupported call: Read-File. Did you mean read_file?",
        'note: arguments were repaired: read "2" as 2 for /offset\nL2: beta',
        "quota exceeded: read_file may run 2 times per turn",
      ]);
      const table = result.stderr.split("\n").filter((l) => /^(tool|read_file)\s/.test(l));
      expect(table[0]?.split(/\s{2,}/)).toEqual([
        "tool",
        "calls",
        "failures",
        "denials",
        "repairs",
        "total ms",
        "p50 ms",
        "p95 ms",
        "bytes",
        "tokens",
      ]);
      const row = table[1]?.trim().split(/\s+/) ?? [];
      expect(row.slice(0, 5)).toEqual(["read_file", "3", "0", "1", "2"]);
    });
  });
});
