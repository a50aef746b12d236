import { describe, expect, it } from "vitest";
import {
  createToolRouter,
  specName,
  type ConfiguredToolSpec,
  type ToolHandler,
  type ToolRouter,
} from "../../../src/index.js";
import { type McpToolRef, type McpToolSource } from "../../../src/subpaths/mcp.js";
import { rankTools } from "../../../src/handlers/tool_search/index.js";
import { callRouter, useTempDir } from "../toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

const names = (router: ToolRouter): string[] => router.specs().map((c) => specName(c.spec));

describe("tool groups and reset_tools", () => {
  const groups = {
    files: {
      tools: ["read_file", "list_dir"],
      description: "Reading the workspace.",
      instructions: "Read before you edit.",
    },
    planning: { tools: ["update_plan"] },
  };

  it("offers only tools in no group until reset_tools activates a group, then deactivates it", async () => {
    const router = await createToolRouter({
      shell: false,
      applyPatch: false,
      grepFiles: false,
      viewImage: false,
      groups,
    });
    expect(names(router)).toEqual(["reset_tools"]);
    const spec = router.specs()[0]!.spec;
    expect(spec.type === "function" && spec.parameters).toMatchObject({
      properties: { files: { type: "boolean", description: "Reading the workspace. Tools: read_file, list_dir." } },
    });
    const inactive = await callRouter(router, "read_file", { file_path: "/etc/hostname" }, { cwd: dir });
    expect(inactive).toMatchObject({
      success: false,
      text: "tool read_file is not active; activate its group with reset_tools",
    });
    const on = await callRouter(router, "reset_tools", { files: true }, { cwd: dir });
    expect(on.text).toBe("Active tool groups: files.\n\n## files\nRead before you edit.");
    expect(names(router)).toEqual(["read_file", "list_dir", "reset_tools"]);
    expect((await callRouter(router, "list_dir", { dir_path: dir }, { cwd: dir })).success).toBe(true);
    const off = await callRouter(router, "reset_tools", { files: false, planning: true }, { cwd: dir });
    expect(off.text).toBe("Active tool groups: planning.");
    expect(names(router)).toEqual(["update_plan", "reset_tools"]);
    expect((await callRouter(router, "list_dir", { dir_path: dir }, { cwd: dir })).text).toBe(
      "tool list_dir is not active; activate its group with reset_tools",
    );
  });

  it("refuses a tool in two groups", async () => {
    await expect(
      createToolRouter({ groups: { a: { tools: ["read_file"] }, b: { tools: ["read_file"] } } }),
    ).rejects.toThrow("tool read_file is in two groups: a and b");
  });
});

/** 200 MCP tools of a fake server, each answering with its own name. */
function fakeMcp(): McpToolSource {
  const topics = ["issue", "pull request", "calendar event", "invoice", "pdf", "spreadsheet", "email", "ticket"];
  const verbs = ["create", "list", "delete", "update", "search"];
  const specs: ConfiguredToolSpec[] = [];
  for (let i = 0; i < 200; i++) {
    const topic = topics[i % topics.length]!;
    const verb = verbs[Math.floor(i / topics.length) % verbs.length]!;
    const name = `mcp__srv${Math.floor(i / 40)}__${verb}_${topic.replace(/ /g, "_")}_${i}`;
    specs.push({
      spec: {
        type: "function",
        name,
        description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${topic} (variant ${i}) in the company system.`,
        strict: false,
        parameters: { type: "object", properties: { id: { type: "string" } } },
      },
      supportsParallelToolCalls: true,
    });
  }
  // The one the test looks for.
  specs.push({
    spec: {
      type: "function",
      name: "mcp__weather__get_forecast",
      description: "Get the weather forecast for a city: temperature, rain and wind by hour.",
      strict: false,
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    supportsParallelToolCalls: true,
  });
  const handler: ToolHandler = {
    kind: "mcp",
    handle: (inv) => Promise.resolve({ kind: "function", body: `ran ${inv.toolName}` }),
  };
  return {
    handler,
    configuredSpecs: () => specs,
    resolve: (name): McpToolRef | undefined => {
      const found = specs.find((c) => specName(c.spec) === name);
      return found ? { server: "srv", tool: name.split("__")[2]!, supportsParallel: true } : undefined;
    },
  };
}

describe("tool search (deferTools)", () => {
  it("hides 201 MCP tools behind tool_search; a query finds the right one, callable from then on", async () => {
    const mcp = fakeMcp();
    const deferred = await createToolRouter({ shell: false, deferTools: true }, { mcp });
    const eager = await createToolRouter({ shell: false }, { mcp });
    const size = (r: ToolRouter): number => JSON.stringify(r.specs().map((c) => c.spec)).length;
    expect(names(deferred).some((n) => n.startsWith("mcp__"))).toBe(false);
    expect(names(deferred)).toContain("tool_search");
    expect(size(deferred) * 5).toBeLessThan(size(eager));

    const forecast = (): ReturnType<typeof callRouter> =>
      callRouter(deferred, "mcp__weather__get_forecast", { city: "Oslo" }, { cwd: dir });
    expect(await forecast()).toMatchObject({
      success: false,
      text: "tool mcp__weather__get_forecast is not active; find it with tool_search first",
    });
    const found = await callRouter(
      deferred,
      "tool_search",
      { query: "weather forecast for a city", limit: 3 },
      { cwd: dir },
    );
    expect(found.success).toBe(true);
    const first = JSON.parse(found.text.split("\n")[1]!) as { name: string };
    expect(first.name).toBe("mcp__weather__get_forecast");
    expect(names(deferred)).toContain("mcp__weather__get_forecast");
    expect(names(deferred).filter((n) => n.startsWith("mcp__")).length).toBeLessThanOrEqual(3);
    expect(await forecast()).toMatchObject({ success: true, text: "ran mcp__weather__get_forecast" });
    const none = await callRouter(deferred, "tool_search", { query: "zzz qqq" }, { cwd: dir });
    expect(none).toMatchObject({ success: false, text: 'No tool matches "zzz qqq"; try other keywords.' });
  });

  it("ranks by BM25 over names and descriptions", () => {
    const tools = [
      { name: "mcp__gh__create_issue", description: "Open a new issue in a repository." },
      { name: "mcp__gh__list_pulls", description: "List pull requests; each may reference an issue." },
      { name: "mcp__cal__create_event", description: "Create a calendar event." },
    ];
    expect(rankTools(tools, "create issue", 2).map((t) => t.name)).toEqual([
      "mcp__gh__create_issue",
      "mcp__cal__create_event",
    ]);
    expect(rankTools(tools, "", 5)).toEqual([]);
  });
});
