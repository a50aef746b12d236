import { describe, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  specName,
  toMcpTools,
  toResponsesTools,
  ToolCallRuntime,
  type ToolFactory,
  type ToolHandler,
  type ToolRouter,
} from "../src/index.js";

const DEFAULT_TOOLS: Array<[string, boolean]> = [
  ["shell", true],
  ["apply_patch", false],
  ["read_file", true],
  ["list_dir", true],
  ["grep_files", true],
  ["view_image", true],
  ["update_plan", false],
];

const names = (router: ToolRouter) => router.specs().map((s) => specName(s.spec));

describe("createToolRouter", () => {
  it("yields the default tool set of DESIGN section 5 with its parallel flags", async () => {
    const router = await createToolRouter({});
    expect(router.specs().map((s) => [specName(s.spec), s.supportsParallelToolCalls])).toEqual(DEFAULT_TOOLS);
    // `local_shell` is routable (alias of shell) but has no spec of its own.
    expect(router.toolSupportsParallel("local_shell")).toBe(true);
    expect(router.toolSupportsParallel("test_sync_tool")).toBe(false);
  });

  it("exports a tool list the Responses API accepts, apply_patch as a custom grammar tool", async () => {
    const tools = toResponsesTools((await createToolRouter({})).specs());
    expect(JSON.parse(JSON.stringify(tools))).toEqual(tools);
    for (const tool of tools) {
      expect(tool.type === "local_shell" || ("name" in tool && /^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))).toBe(true);
      if (tool.type === "function") {
        expect(tool.parameters).toMatchObject({ type: "object" });
        expect(tool.description.length).toBeGreaterThan(0);
      }
    }
    const patch = tools.find((t) => "name" in t && t.name === "apply_patch");
    expect(patch).toMatchObject({ type: "custom", format: { type: "grammar", syntax: "lark" } });
    expect(patch?.type === "custom" && patch.format?.definition).toContain("Begin Patch");
  });

  it("every built-in spec carries its annotations; the MCP exporter passes them on, the Responses one leaves them out", async () => {
    const router = await createToolRouter({});
    const annotations = Object.fromEntries(
      router.specs().flatMap((s) => (s.spec.type === "local_shell" ? [] : [[s.spec.name, s.spec.annotations]])),
    );
    expect(annotations).toMatchObject({
      shell: { destructiveHint: true },
      apply_patch: { destructiveHint: true },
      read_file: { readOnlyHint: true },
      list_dir: { readOnlyHint: true },
      grep_files: { readOnlyHint: true },
      view_image: { readOnlyHint: true },
      update_plan: { readOnlyHint: true },
    });
    expect(toMcpTools(router.specs()).find((t) => t.name === "read_file")?.annotations).toEqual({ readOnlyHint: true });
    expect(JSON.stringify(toResponsesTools(router.specs()))).not.toContain("annotations");
  });

  it("switches tools on and off per ToolsConfig", async () => {
    const router = await createToolRouter({
      shell: false,
      applyPatch: "function",
      readFile: false,
      listDir: false,
      grepFiles: false,
      viewImage: false,
      updatePlan: false,
      testSyncTool: true,
    });
    expect(router.specs().map((s) => [s.spec.type, specName(s.spec), s.supportsParallelToolCalls])).toEqual([
      ["function", "apply_patch", false],
      ["function", "test_sync_tool", true],
    ]);
    expect(names(await createToolRouter({ shell: false, applyPatch: false }))).toEqual(
      DEFAULT_TOOLS.slice(2).map(([name]) => name),
    );
  });

  it("offers edit_file, write_file and glob only when switched on (DESIGN section 15)", async () => {
    for (const off of [{}, { editFile: false, writeFile: false, glob: false }]) {
      expect(names(await createToolRouter(off)).filter((n) => ["edit_file", "write_file", "glob"].includes(n))).toEqual(
        [],
      );
    }
    const router = await createToolRouter({ editFile: true, writeFile: true, glob: true });
    expect(router.specs().map((s) => [specName(s.spec), s.supportsParallelToolCalls])).toEqual([
      ["shell", true],
      ["apply_patch", false],
      ["edit_file", false],
      ["write_file", false],
      ["read_file", true],
      ["list_dir", true],
      ["grep_files", true],
      ["glob", true],
      ["view_image", true],
      ["update_plan", false],
    ]);
    const annotations = Object.fromEntries(
      router.specs().flatMap((s) => (s.spec.type === "local_shell" ? [] : [[s.spec.name, s.spec.annotations]])),
    );
    expect(annotations).toMatchObject({
      edit_file: { destructiveHint: true },
      write_file: { destructiveHint: true },
      glob: { readOnlyHint: true },
    });
  });

  it("hands every factory of one router the same file-read ledger, and each router its own", async () => {
    const seen: unknown[] = [];
    const spy: ToolFactory<null> = (_params, ctx) => {
      seen.push(ctx.fileReads);
      return [];
    };
    const opts = { factories: { a: spy, b: spy }, tools: { a: null, b: null } };
    await createToolRouter({}, opts);
    await createToolRouter({}, opts);
    expect(seen).toHaveLength(4);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[2]).toBe(seen[3]);
    expect(seen[0]).not.toBe(seen[2]);
  });

  it("adds dynamic tools after the built-ins, exclusive; a name clash throws", async () => {
    const dynamicTools = [{ name: "ask_user", description: "Asks the user", inputSchema: { type: "object" } }];
    const router = await createToolRouter({ testSyncTool: true }, { dynamicTools });
    expect(names(router).slice(-2)).toEqual(["ask_user", "test_sync_tool"]);
    expect(router.toolSupportsParallel("ask_user")).toBe(false);
    await expect(createToolRouter({}, { dynamicTools: [{ ...dynamicTools[0]!, name: "read_file" }] })).rejects.toThrow(
      "duplicate tool spec: read_file",
    );
  });
});

describe("plugin tool factories", () => {
  const greeter: ToolFactory<{ greeting: string; names: string[] }> = (params, ctx) =>
    params.names.map((name) => {
      const handler: ToolHandler = {
        kind: "function",
        handle: async (inv) => ({
          kind: "function",
          body: `${params.greeting}, ${(inv.args as { who: string }).who} (cwd ${inv.turn.cwd}, ${ctx.dynamicTools.length} dynamic tools)`,
        }),
      };
      return {
        spec: {
          type: "function",
          name,
          description: "Greets",
          parameters: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
        },
        handler,
        supportsParallel: true,
      };
    });

  it("adds tools by factory name with parameters; they run through the runtime like built-ins", async () => {
    const router = await createToolRouter(
      { shell: false },
      { factories: { greeter }, tools: { greeter: { greeting: "Hello", names: ["greet"] } } },
    );
    expect(names(router).at(-1)).toBe("greet");
    expect(router.toolSupportsParallel("greet")).toBe(true);

    const runtime = new ToolCallRuntime(router, createTurnContext({ cwd: "/work" }));
    runtime.submit({ type: "function_call", call_id: "g1", name: "greet", arguments: '{"who":"Ada"}' });
    runtime.submit({ type: "function_call", call_id: "g2", name: "greet", arguments: "{}" });
    expect(await runtime.drain()).toEqual([
      { type: "function_call_output", call_id: "g1", output: "Hello, Ada (cwd /work, 0 dynamic tools)" },
      {
        type: "function_call_output",
        call_id: "g2",
        output: "invalid arguments for greet: / must have required property 'who'",
      },
    ]);
  });

  it("throws on an unknown factory and a duplicate tool name", async () => {
    const factories = { greeter };
    await expect(createToolRouter({}, { factories, tools: { nope: {} } })).rejects.toThrow(
      "unknown tool factory: nope",
    );
    // Inherited names are not factories.
    await expect(createToolRouter({}, { factories, tools: { toString: {} } })).rejects.toThrow(
      "unknown tool factory: toString",
    );
    await expect(
      createToolRouter({}, { factories, tools: { greeter: { greeting: "Hi", names: ["read_file"] } } }),
    ).rejects.toThrow("duplicate tool spec: read_file");
    await expect(
      createToolRouter({}, { factories, tools: { greeter: { greeting: "Hi", names: ["twin", "twin"] } } }),
    ).rejects.toThrow("duplicate tool spec: twin");
  });

  it("keeps factories per router: one router's plugins are unknown to another", async () => {
    const withPlugin = await createToolRouter(
      { shell: false },
      { factories: { greeter }, tools: { greeter: { greeting: "Hi", names: ["greet"] } } },
    );
    expect(names(withPlugin)).toContain("greet");
    await expect(createToolRouter({}, { tools: { greeter: { greeting: "Hi", names: ["greet"] } } })).rejects.toThrow(
      "unknown tool factory: greeter",
    );
  });
});
