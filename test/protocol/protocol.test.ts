import { describe, expect, it } from "vitest";
import {
  FunctionCallError,
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

  it("Chat Completions tools (local_shell has no chat form)", () => {
    expect(toChatCompletionsTools(specs)).toEqual([
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
