/**
 * A model repeating itself (opencode's "doom loop"): the same tool with the same arguments,
 * answered with the same output, `limit` times in a row in a session. The next such call is
 * answered instead of run. Any other call that runs, or another output, starts the count again.
 * Cheap: the same argument text is the same call without a look inside; arguments are
 * normalized only when the tool and the output match and the texts differ.
 */
export class LoopDetector {
  private tool: string | undefined;
  /** The arguments as the model wrote them (function and MCP calls), and as parsed. */
  private raw: string | undefined;
  private args: unknown;
  /** `args` normalized, made when first compared. */
  private key: string | undefined;
  private output: unknown;
  private count = 0;

  /** `limit` 0: never a loop. */
  constructor(private readonly limit: number) {}

  /** How many times in a row this call already ran with one result, when that is the limit; else undefined. */
  repeats(tool: string, raw: string | undefined, args: unknown): number | undefined {
    if (this.limit === 0 || this.count < this.limit || tool !== this.tool) return undefined;
    return this.sameArgs(raw, args) ? this.count : undefined;
  }

  /** A call whose handler ran was answered with `output` (a string, or content to compare as JSON). */
  ran(tool: string, raw: string | undefined, args: unknown, output: unknown): void {
    if (this.limit === 0) return;
    if (tool === this.tool && sameOutput(output, this.output) && this.sameArgs(raw, args)) {
      this.count++;
      return;
    }
    this.tool = tool;
    this.raw = raw;
    this.args = args;
    this.key = undefined;
    this.output = output;
    this.count = 1;
  }

  /** Never throws (it runs while a call is settled): arguments nested too deep to compare are another call. */
  private sameArgs(raw: string | undefined, args: unknown): boolean {
    if (raw !== undefined && raw === this.raw) return true;
    try {
      return normalizedJson(args) === this.streakKey();
    } catch {
      return false;
    }
  }

  private streakKey(): string {
    this.key ??= normalizedJson(this.args);
    return this.key;
  }
}

/** Outputs are text or content items (plain data): their JSON compares them. */
const sameOutput = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a !== "string" && typeof b !== "string" && JSON.stringify(a) === JSON.stringify(b));

/** Arguments in one spelling: keys sorted at every level, so `{"b":1,"a":2}` is `{"a":2,"b":1}`. */
export function normalizedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(normalizedJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}:${normalizedJson(record[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
