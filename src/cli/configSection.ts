/** A config problem the user must fix; `toolcall` exits with code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export type Table = Record<string, unknown>;
export const isTable = (v: unknown): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);

export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "date";
  return typeof v;
}

/**
 * Reads one section's keys, naming the file, the dotted key and the expected type in errors.
 * The name "" stands for the document's top level (its keys are named bare).
 */
export class Section {
  constructor(
    readonly file: string,
    readonly name: string,
    private readonly table: Table,
    /** Collects the dotted keys `rejectUnknown` skipped as documented by Codex or Claude (shared by subsections). */
    readonly ignored: string[] = [],
  ) {}

  /** `name.key` as the user wrote it. */
  dotted(key: string): string {
    return this.name === "" ? key : `${this.name}.${key}`;
  }

  /** The raw value of `key`, unchecked. */
  raw(key: string): unknown {
    return this.table[key];
  }

  has(key: string): boolean {
    return this.table[key] !== undefined;
  }

  fail(key: string, expected: string): never {
    const value = this.table[key];
    throw new ConfigError(`${this.file}: ${this.dotted(key)}: expected ${expected}, got ${typeName(value)}`);
  }

  /** `documented`: keys another tool's format has that we do not use; they are only noted in `ignored`. */
  rejectUnknown(known: readonly string[], documented: readonly string[] = []): void {
    for (const key of Object.keys(this.table)) {
      if (documented.includes(key)) this.ignored.push(this.dotted(key));
      else if (!known.includes(key)) {
        throw new ConfigError(`${this.file}: unknown key ${this.dotted(key)} (known keys: ${known.join(", ")})`);
      }
    }
  }

  boolean(key: string): boolean | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") this.fail(key, "boolean");
    return v;
  }

  /** A boolean or a non-empty string (`network = true`, `network = "host"`). */
  booleanOrString(key: string): boolean | string | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean" && (typeof v !== "string" || v === "")) this.fail(key, "boolean or a non-empty string");
    return v;
  }

  /** A non-empty string. */
  string(key: string): string | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v === "") this.fail(key, "a non-empty string");
    return v;
  }

  integer(key: string, min: number, max: number): number | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    // smol-toml yields bigint only past 2^53; treat it like any other out-of-range number.
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      this.fail(key, `integer in ${min}..${max}`);
    }
    return v;
  }

  oneOf<T extends string | false>(key: string, choices: readonly T[]): T | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (!choices.includes(v as T)) this.fail(key, `one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`);
    return v as T;
  }

  stringArray(key: string, opts: { nonEmpty?: boolean } = {}): string[] | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    const ok = (item: unknown): boolean => typeof item === "string" && (!opts.nonEmpty || item !== "");
    if (!Array.isArray(v) || !v.every(ok))
      this.fail(key, opts.nonEmpty ? "array of non-empty strings" : "array of strings");
    return v as string[];
  }

  /** A table whose values are all strings (`set = { NAME = "value" }`). */
  stringTable(key: string): Record<string, string> | undefined {
    const sub = this.subTable(key);
    if (sub === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(sub.table)) {
      out[name] = typeof value === "string" ? value : sub.fail(name, "string");
    }
    return out;
  }

  /** The section's own keys. */
  keys(): string[] {
    return Object.keys(this.table);
  }

  subTable(key: string): Section | undefined {
    const v = this.table[key];
    if (v === undefined) return undefined;
    if (!isTable(v)) this.fail(key, "table");
    return new Section(this.file, this.dotted(key), v, this.ignored);
  }
}
