/**
 * A model repeating itself (opencode's "doom loop"): the same tool with the same arguments,
 * answered with the same output, `limit` times in a row in a session. The next such call is
 * answered instead of run. Any other call that runs, or another output, starts the count again.
 * Cheap: the same argument text is the same call without a look inside; parsed arguments are
 * compared only when the tool and the output match and the texts differ, and the first
 * difference ends the comparison (no normalized copy is built).
 */
export class LoopDetector {
  private tool: string | undefined;
  /** The arguments as the model wrote them (function and MCP calls), and as parsed. */
  private raw: string | undefined;
  private args: unknown;
  private output: unknown;
  private count = 0;

  /** Loop detection is on (`limit` above 0): off, the ledger asks nothing per call. */
  readonly on: boolean;

  /** `limit` 0: never a loop. */
  constructor(private readonly limit: number) {
    this.on = limit > 0;
  }

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
    this.output = output;
    this.count = 1;
  }

  /** Never throws (it runs while a call is settled): arguments nested too deep to compare are another call. */
  private sameArgs(raw: string | undefined, args: unknown): boolean {
    if (raw !== undefined && raw === this.raw) return true;
    try {
      return sameJson(args, this.args);
    } catch {
      return false;
    }
  }
}

/** Outputs are text or content items (plain data, shallow). */
const sameOutput = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a !== "string" && typeof b !== "string" && sameJson(a, b));

/**
 * The same JSON value, keys in any order at every level (`{"b":1,"a":2}` is `{"a":2,"b":1}`).
 * Nesting deeper than the stack throws a RangeError.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key of keys) if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
  return true;
}
