import type { ToolUsage } from "../ledger/index.js";

const COLUMNS = ["tool", "calls", "failures", "denials", "repairs", "total ms", "p50 ms", "p95 ms", "bytes", "tokens"];

/** `router.usage()` as a plain-text table, one tool a row, the costliest (most tokens) first. */
export function usageTable(usage: Record<string, ToolUsage>): string {
  const ms = (n: number): string => n.toFixed(1);
  const rows = Object.entries(usage)
    .sort(([, a], [, b]) => b.tokens - a.tokens)
    .map(([tool, u]) => [
      tool,
      String(u.calls),
      String(u.failures),
      String(u.denials),
      String(u.repairs),
      ms(u.handlerMs.total),
      ms(u.handlerMs.p50),
      ms(u.handlerMs.p95),
      String(u.bytes),
      String(u.tokens),
    ]);
  const table = [COLUMNS, ...rows];
  const widths = COLUMNS.map((_, i) => Math.max(...table.map((row) => (row[i] as string).length)));
  // The tool name left-aligned, the numbers right-aligned.
  const line = (row: string[]): string =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number))).join("  ");
  return `${table.map(line).join("\n")}\n`;
}
