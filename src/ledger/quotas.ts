import { texts } from "../protocol/index.js";

/** How often the tools a pattern names may run (DESIGN section 18); a missing limit is no limit. */
export interface QuotaLimit {
  perTurn?: number;
  perSession?: number;
}

/** Tool name or pattern (`*` matches any run of characters: `mcp__github__*`) -> its limits. */
export type QuotaConfig = Readonly<Record<string, QuotaLimit>>;

interface Rule {
  pattern: string;
  matches: (tool: string) => boolean;
  perTurn: number | undefined;
  perSession: number | undefined;
  /** Calls admitted under this rule in the session. */
  session: number;
}

function limit(pattern: string, key: "perTurn" | "perSession", value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new TypeError(
      `quotas[${JSON.stringify(pattern)}].${key} must be a non-negative integer, got ${JSON.stringify(value) ?? typeof value}`,
    );
  }
  return value;
}

function matcher(pattern: string): (tool: string) => boolean {
  if (!pattern.includes("*")) return (tool) => tool === pattern;
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const re = new RegExp(`^${source}$`, "s");
  return (tool) => re.test(tool);
}

/** A turn as the quotas tell turns apart: a runtime's turn id, or the turn context of a bare `router.dispatch`. */
export type TurnKey = string | object;

/** Per-turn counts a runtime's turns keep by id: the last this many (a session has few turns at once). */
const TURNS_KEPT = 64;

/**
 * Calls per turn and per session under each pattern: a pattern's budget is shared by every
 * tool it names (a server's rate limit is the server's), and a call must fit every pattern
 * that names its tool. Only admitted calls count; a refused one runs nothing and counts nothing.
 */
export class Quotas {
  private readonly rules: Rule[];
  /** Rules by tool name, found once per tool. */
  private readonly byTool = new Map<string, readonly Rule[]>();
  /** Admitted calls per rule in each turn: by turn id (the last `TURNS_KEPT`), or by context object. */
  private readonly turnsById = new Map<string, Map<Rule, number>>();
  private readonly turnsByContext = new WeakMap<object, Map<Rule, number>>();

  constructor(config: QuotaConfig = {}) {
    if (typeof config !== "object" || config === null || Array.isArray(config)) {
      throw new TypeError("quotas must map tool names or patterns to { perTurn, perSession }");
    }
    this.rules = Object.entries(config).map(([pattern, value]) => {
      if (pattern === "") throw new TypeError("quotas: a tool name or pattern must not be empty");
      if (typeof value !== "object" || value === null) {
        throw new TypeError(`quotas[${JSON.stringify(pattern)}] must be { perTurn?, perSession? }`);
      }
      for (const key of Object.keys(value)) {
        if (key !== "perTurn" && key !== "perSession") {
          throw new TypeError(`quotas[${JSON.stringify(pattern)}]: unknown key ${key} (known: perTurn, perSession)`);
        }
      }
      return {
        pattern,
        matches: matcher(pattern),
        perTurn: limit(pattern, "perTurn", value.perTurn),
        perSession: limit(pattern, "perSession", value.perSession),
        session: 0,
      };
    });
  }

  /** Some quota is configured: without one, `admit` has nothing to count. */
  get any(): boolean {
    return this.rules.length > 0;
  }

  /** The refusal text when the call is past a quota; otherwise the call is counted and undefined. */
  admit(toolName: string, turn: TurnKey): string | undefined {
    if (this.rules.length === 0) return undefined;
    const rules = this.rulesFor(toolName);
    if (rules.length === 0) return undefined;
    const counts = this.countsOf(turn);
    for (const rule of rules) {
      if (rule.perTurn !== undefined && (counts.get(rule) ?? 0) >= rule.perTurn)
        return texts.quotaExceeded(rule.pattern, rule.perTurn, "turn");
      if (rule.perSession !== undefined && rule.session >= rule.perSession)
        return texts.quotaExceeded(rule.pattern, rule.perSession, "session");
    }
    count(rules, counts);
    return undefined;
  }

  /**
   * A resumed turn (DESIGN section 17): the calls its journal says ran count again, toward the
   * turn and the session, unless these quotas already counted the turn (the same router
   * resumed it in the same process).
   */
  resumed(turnId: string, ran: readonly string[]): void {
    if (this.rules.length === 0 || this.turnsById.has(turnId)) return;
    for (const toolName of ran) {
      const rules = this.rulesFor(toolName);
      if (rules.length > 0) count(rules, this.countsOf(turnId));
    }
  }

  private rulesFor(toolName: string): readonly Rule[] {
    let rules = this.byTool.get(toolName);
    if (!rules) {
      rules = this.rules.filter((r) => r.matches(toolName));
      this.byTool.set(toolName, rules);
    }
    return rules;
  }

  private countsOf(turn: TurnKey): Map<Rule, number> {
    if (typeof turn === "object") {
      let counts = this.turnsByContext.get(turn);
      if (!counts) {
        counts = new Map();
        this.turnsByContext.set(turn, counts);
      }
      return counts;
    }
    let counts = this.turnsById.get(turn);
    if (!counts) {
      counts = new Map();
      this.turnsById.set(turn, counts);
      // Insertion order: the oldest turn goes first.
      if (this.turnsById.size > TURNS_KEPT) this.turnsById.delete(this.turnsById.keys().next().value as string);
    }
    return counts;
  }
}

function count(rules: readonly Rule[], counts: Map<Rule, number>): void {
  for (const rule of rules) {
    counts.set(rule, (counts.get(rule) ?? 0) + 1);
    rule.session++;
  }
}
