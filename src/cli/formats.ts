import { WIRE_FORMATS, type WireFormat } from "../adapters/index.js";
import { ConfigError } from "./config.js";

export { detectFormat, itemsOf, outputValues, type WireFormat } from "../adapters/index.js";

export function parseFormat(value: string | undefined): WireFormat | undefined {
  if (value === undefined) return undefined;
  if ((WIRE_FORMATS as readonly string[]).includes(value)) return value as WireFormat;
  throw new ConfigError(`--format: expected responses, chat or anthropic, got ${JSON.stringify(value)}`);
}
