import {
  specName,
  type ConfiguredToolSpec,
  type CustomToolSpec,
  type JsonSchema,
  type ToolAnnotations,
  type ToolSpec,
} from "./spec.js";

type SpecList = ReadonlyArray<ToolSpec | ConfiguredToolSpec>;

function plain(specs: SpecList): ToolSpec[] {
  return specs.map((s) => ("spec" in s ? s.spec : s));
}

export type ResponsesTool =
  | { type: "function"; name: string; description: string; parameters: JsonSchema; strict: boolean }
  | {
      type: "custom";
      name: string;
      description: string;
      format?: { type: "grammar"; syntax: "lark" | "regex"; definition: string };
    }
  | { type: "local_shell" }
  | { type: "shell" }
  | { type: "apply_patch" };

export interface ResponsesToolsOptions {
  /**
   * Offer the shell tool (`shell`, `shell_command`, `local_shell`) as the Responses API's native
   * `{type: "shell"}`: the model then sends `shell_call` items, which the same handler answers.
   */
  nativeShell?: boolean;
  /** Offer `apply_patch` as the native `{type: "apply_patch"}` (`apply_patch_call` items). */
  nativeApplyPatch?: boolean;
}

const SHELL_TOOL_NAMES: ReadonlySet<string> = new Set(["shell", "shell_command", "local_shell"]);

/** The `tools` array of a Responses API request. */
export function toResponsesTools(specs: SpecList, opts: ResponsesToolsOptions = {}): ResponsesTool[] {
  const out: ResponsesTool[] = [];
  for (const spec of plain(specs)) {
    const name = specName(spec);
    if (opts.nativeShell && SHELL_TOOL_NAMES.has(name)) {
      // One native shell tool, however many shell forms are registered.
      if (!out.some((t) => t.type === "shell")) out.push({ type: "shell" });
    } else if (opts.nativeApplyPatch && name === "apply_patch") {
      out.push({ type: "apply_patch" });
    } else {
      out.push(responsesTool(spec));
    }
  }
  return out;
}

function responsesTool(spec: ToolSpec): ResponsesTool {
  switch (spec.type) {
    case "function":
      return {
        type: "function",
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters,
        // The Responses API defaults to strict; our schemas may use optional fields.
        strict: spec.strict ?? false,
      };
    case "custom":
      return spec.format
        ? { type: "custom", name: spec.name, description: spec.description, format: spec.format }
        : { type: "custom", name: spec.name, description: spec.description };
    case "local_shell":
      return { type: "local_shell" };
  }
}

export type ChatCompletionsTool =
  | {
      type: "function";
      function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
    }
  | {
      type: "custom";
      custom: {
        name: string;
        description: string;
        format?: { type: "grammar"; grammar: { syntax: "lark" | "regex"; definition: string } };
      };
    };

export interface ChatCompletionsToolsOptions {
  /**
   * The backend accepts custom (freeform, grammar) tools. Only OpenAI does: without this,
   * freeform tools such as apply_patch are offered as function tools with one string `input`.
   */
  customTools?: boolean;
}

/**
 * The `tools` array of a Chat Completions request. The hosted `local_shell` tool has no Chat
 * Completions form and is left out (the `shell` function tool covers it).
 */
export function toChatCompletionsTools(specs: SpecList, opts: ChatCompletionsToolsOptions = {}): ChatCompletionsTool[] {
  const out: ChatCompletionsTool[] = [];
  for (const spec of plain(specs)) {
    if (spec.type === "function") {
      const fn: { name: string; description: string; parameters: JsonSchema; strict?: boolean } = {
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters,
      };
      if (spec.strict !== undefined) fn.strict = spec.strict;
      out.push({ type: "function", function: fn });
    } else if (spec.type === "custom" && !opts.customTools) {
      out.push({
        type: "function",
        function: { name: spec.name, description: spec.description, parameters: freeformInputSchema(spec) },
      });
    } else if (spec.type === "custom") {
      out.push({
        type: "custom",
        custom: {
          name: spec.name,
          description: spec.description,
          ...(spec.format
            ? {
                format: {
                  type: "grammar" as const,
                  grammar: { syntax: spec.format.syntax, definition: spec.format.definition },
                },
              }
            : {}),
        },
      });
    }
  }
  return out;
}

export interface McpToolDescription {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations?: ToolAnnotations;
}

/**
 * Tool descriptions for an MCP `tools/list` answer, with their annotations (the Responses and
 * Chat Completions tool shapes have no such field, and their APIs reject unknown ones). A freeform (custom) tool becomes a tool
 * with one string argument `input`; `local_shell` is left out (MCP clients call `shell`).
 */
export function toMcpTools(specs: SpecList): McpToolDescription[] {
  const out: McpToolDescription[] = [];
  for (const spec of plain(specs)) {
    if (spec.type === "function") {
      out.push({
        name: spec.name,
        description: spec.description,
        inputSchema: { ...spec.parameters, type: "object" },
        ...(spec.annotations && { annotations: spec.annotations }),
      });
    } else if (spec.type === "custom") {
      out.push({
        name: spec.name,
        description: spec.description,
        inputSchema: freeformInputSchema(spec),
        ...(spec.annotations && { annotations: spec.annotations }),
      });
    }
  }
  return out;
}

/**
 * A freeform (custom) tool for APIs without them: one string argument `input`, its grammar in
 * the description. The handlers take a function call's `input` as the freeform text.
 */
function freeformInputSchema(spec: CustomToolSpec): { type: "object"; [key: string]: unknown } {
  const grammar = spec.format
    ? `\n\nThe input follows this ${spec.format.syntax} grammar:\n${spec.format.definition}`
    : "";
  return {
    type: "object",
    properties: { input: { type: "string", description: `Freeform input.${grammar}` } },
    required: ["input"],
    additionalProperties: false,
  };
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
}

/**
 * The `tools` array of an Anthropic Messages request: function tools with their schema,
 * freeform tools with one string `input`; `local_shell` is left out (the model calls `shell`).
 */
export function toAnthropicTools(specs: SpecList): AnthropicTool[] {
  return toMcpTools(specs).map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
}
