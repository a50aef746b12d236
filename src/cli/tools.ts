import {
  toAnthropicTools,
  toChatCompletionsTools,
  toMcpTools,
  toResponsesTools,
  type ConfiguredToolSpec,
} from "../protocol/index.js";
import { ConfigError } from "./config.js";
import { openSession, type CommonOptions } from "./session.js";

const TOOL_FORMATS = ["responses", "chat", "anthropic", "mcp"] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

function parseToolFormat(value: string | undefined): ToolFormat {
  const format = value ?? "responses";
  if (!(TOOL_FORMATS as readonly string[]).includes(format)) {
    throw new ConfigError(`--format: expected one of ${TOOL_FORMATS.join(", ")}, got ${JSON.stringify(format)}`);
  }
  return format as ToolFormat;
}

function exportTools(specs: ConfiguredToolSpec[], format: ToolFormat): unknown[] {
  switch (format) {
    case "responses":
      return toResponsesTools(specs);
    case "chat":
      return toChatCompletionsTools(specs);
    case "anthropic":
      return toAnthropicTools(specs);
    case "mcp":
      return toMcpTools(specs);
  }
}

/** `toolcall tools`: prints the configured tools (built-ins and MCP servers') as a JSON array. */
export async function runTools(opts: CommonOptions & { format?: string | undefined }): Promise<number> {
  const format = parseToolFormat(opts.format);
  const session = await openSession(opts);
  try {
    process.stdout.write(`${JSON.stringify(exportTools(session.router.specs(), format), null, 2)}\n`);
    return 0;
  } finally {
    await session.close();
  }
}
