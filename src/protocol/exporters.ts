import type { ConfiguredToolSpec, JsonSchema, ToolAnnotations, ToolSpec } from "./spec.js";

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
  | { type: "local_shell" };

/** The `tools` array of a Responses API request. */
export function toResponsesTools(specs: SpecList): ResponsesTool[] {
  return plain(specs).map((spec): ResponsesTool => {
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
  });
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

/**
 * The `tools` array of a Chat Completions request. The hosted `local_shell` tool has no Chat
 * Completions form and is left out (the `shell` function tool covers it).
 */
export function toChatCompletionsTools(specs: SpecList): ChatCompletionsTool[] {
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
      const grammar = spec.format
        ? `\n\nThe input follows this ${spec.format.syntax} grammar:\n${spec.format.definition}`
        : "";
      out.push({
        name: spec.name,
        description: spec.description,
        inputSchema: {
          type: "object",
          properties: { input: { type: "string", description: `Freeform input.${grammar}` } },
          required: ["input"],
          additionalProperties: false,
        },
        ...(spec.annotations && { annotations: spec.annotations }),
      });
    }
  }
  return out;
}
