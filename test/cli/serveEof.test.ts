import { describe, expect, it } from "vitest";
import { jsonLines, runCli, withTempDir } from "./helpers.js";

describe("toolcall serve --stdio: requests written in one go, then end of input", () => {
  it("answers every request (Chat and Anthropic calls too) before it exits", async () => {
    await withTempDir(async (dir) => {
      const requests = [
        { id: 1, method: "initialize", params: { cwd: dir } },
        { id: 2, method: "turn/start", params: { turnId: "t" } },
        {
          id: 3,
          method: "turn/submit",
          params: {
            turnId: "t",
            item: {
              id: "c1",
              type: "function",
              function: { name: "list_dir", arguments: `{"dir_path":${JSON.stringify(dir)}}` },
            },
          },
        },
        {
          id: 4,
          method: "turn/submit",
          params: { turnId: "t", item: { type: "tool_use", id: "u1", name: "list_dir", input: { dir_path: dir } } },
        },
        { id: 5, method: "turn/submit", params: { turnId: "t", item: { type: "reasoning", id: "r", summary: [] } } },
        { id: 6, method: "turn/drain", params: { turnId: "t" } },
      ];
      const input = requests.map((r) => JSON.stringify({ jsonrpc: "2.0", ...r })).join("\n") + "\n";
      const { code, stdout } = await runCli(["serve", "--stdio"], { cwd: dir, input });
      expect(code).toBe(0);
      const replies = jsonLines(stdout).filter((m) => m["id"] !== undefined && m["method"] === undefined);
      expect(replies.map((r) => [r["id"], r["error"]])).toEqual([1, 2, 3, 4, 5, 6].map((id) => [id, undefined]));
      expect(replies[4]!["result"]).toEqual({
        accepted: false,
        reason: 'items of type "reasoning" are not tool calls; nothing to run',
      });
      const drained = (replies[5]!["result"] as { outputs: Array<Record<string, unknown>> }).outputs;
      expect(drained[0]).toMatchObject({ role: "tool", tool_call_id: "c1" });
      expect(drained[1]).toMatchObject({ type: "tool_result", tool_use_id: "u1", is_error: false });
    });
  });
});
