import { describe, expect, it } from "vitest";
import {
  FunctionCallError,
  toAnthropicTools,
  toChatCompletionsTools,
  toMcpTools,
  toResponsesTools,
  type ConfiguredToolSpec,
} from "../../src/index.js";

describe("FunctionCallError", () => {
  it("has the kinds and texts of the design", () => {
    expect(FunctionCallError.respondToModel("as given")).toMatchObject({
      kind: "respond_to_model",
      message: "as given",
    });
    expect(FunctionCallError.fatal("boom")).toMatchObject({ kind: "fatal", message: "Fatal error: boom" });
    expect(FunctionCallError.missingLocalShellCallId()).toMatchObject({
      kind: "missing_local_shell_call_id",
      message: "LocalShellCall without call_id or id",
    });
    expect(FunctionCallError.fatal("x")).toBeInstanceOf(Error);
  });
});

const specs: ConfiguredToolSpec[] = [
  {
    spec: {
      type: "function",
      name: "read_file",
      description: "Read",
      parameters: { type: "object", properties: { p: { type: "string" } } },
    },
    supportsParallelToolCalls: true,
  },
  {
    spec: {
      type: "custom",
      name: "apply_patch",
      description: "Patch",
      format: { type: "grammar", syntax: "lark", definition: "start: x" },
    },
    supportsParallelToolCalls: false,
  },
  { spec: { type: "local_shell" }, supportsParallelToolCalls: true },
];

describe("spec exporters", () => {
  it("Responses API tools", () => {
    expect(toResponsesTools(specs)).toEqual([
      {
        type: "function",
        name: "read_file",
        description: "Read",
        parameters: specs[0]!.spec.type === "function" ? specs[0]!.spec.parameters : {},
        strict: false,
      },
      {
        type: "custom",
        name: "apply_patch",
        description: "Patch",
        format: { type: "grammar", syntax: "lark", definition: "start: x" },
      },
      { type: "local_shell" },
    ]);
  });

  it("Chat Completions tools: freeform tools as a function with one string `input` unless custom tools are accepted", () => {
    const [readFile, patch] = toChatCompletionsTools(specs);
    expect(readFile).toEqual({
      type: "function",
      function: {
        name: "read_file",
        description: "Read",
        parameters: { type: "object", properties: { p: { type: "string" } } },
      },
    });
    expect(patch).toEqual({
      type: "function",
      function: {
        name: "apply_patch",
        description: "Patch",
        parameters: {
          type: "object",
          properties: {
            input: { type: "string", description: "Freeform input.\n\nThe input follows this lark grammar:\nstart: x" },
          },
          required: ["input"],
          additionalProperties: false,
        },
      },
    });
  });

  it("Chat Completions tools with customTools (local_shell has no chat form)", () => {
    expect(toChatCompletionsTools(specs, { customTools: true })).toEqual([
      {
        type: "function",
        function: {
          name: "read_file",
          description: "Read",
          parameters: { type: "object", properties: { p: { type: "string" } } },
        },
      },
      {
        type: "custom",
        custom: {
          name: "apply_patch",
          description: "Patch",
          format: { type: "grammar", grammar: { syntax: "lark", definition: "start: x" } },
        },
      },
    ]);
  });

  it("Responses tools can offer the native shell and apply_patch tool types", () => {
    const shells: ConfiguredToolSpec[] = [
      ...specs,
      {
        spec: { type: "function", name: "shell", description: "Run", parameters: { type: "object" } },
        supportsParallelToolCalls: true,
      },
    ];
    expect(toResponsesTools(shells, { nativeShell: true, nativeApplyPatch: true })).toEqual([
      expect.objectContaining({ type: "function", name: "read_file" }),
      { type: "apply_patch" },
      { type: "shell" },
    ]);
    expect(toResponsesTools(shells, { nativeApplyPatch: true }).map((t) => t.type)).toEqual([
      "function",
      "apply_patch",
      "local_shell",
      "function",
    ]);
  });

  it("Anthropic tools: input_schema; freeform tools take one string `input`; local_shell left out", () => {
    expect(toAnthropicTools(specs)).toEqual([
      {
        name: "read_file",
        description: "Read",
        input_schema: { type: "object", properties: { p: { type: "string" } } },
      },
      {
        name: "apply_patch",
        description: "Patch",
        input_schema: expect.objectContaining({ required: ["input"], properties: { input: expect.any(Object) } }),
      },
    ]);
  });

  it("MCP tools: freeform tools take one string `input`", () => {
    const tools = toMcpTools(specs.map((s) => s.spec));
    expect(tools.map((t) => t.name)).toEqual(["read_file", "apply_patch"]);
    expect(tools[1]!.inputSchema).toMatchObject({
      type: "object",
      required: ["input"],
      properties: { input: { type: "string" } },
    });
    expect((tools[1]!.inputSchema.properties as { input: { description: string } }).input.description).toContain(
      "start: x",
    );
  });
});
