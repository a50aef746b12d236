import type { RiskLevel } from "./types.js";

const RANK: Readonly<Record<RiskLevel, number>> = { low: 0, medium: 1, high: 2 };

/** The model's `security_risk`, or undefined when it gave none or something else. */
export function riskLevel(value: unknown): RiskLevel | undefined {
  return value === "low" || value === "medium" || value === "high" ? value : undefined;
}

/** `askAtRisk`: a missing or invalid risk counts as high (DESIGN section 11). */
export function riskAtLeast(value: unknown, threshold: "medium" | "high"): boolean {
  return RANK[riskLevel(value) ?? "high"] >= RANK[threshold];
}
