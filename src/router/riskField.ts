import type { ConfiguredToolSpec } from "../protocol/index.js";

const RISK_PROPERTY = {
  type: "string",
  enum: ["low", "medium", "high"],
  description: "How risky this call is: what could go wrong if it runs (low, medium or high).",
};

/**
 * With `PermissionPolicy.riskField` (OpenHands' risk prediction), the schema of every tool that
 * may change things gains a required `security_risk`, which dispatch strips before the tool's
 * own validation (`takeRisk`).
 */
export function withRiskField(
  configured: ConfiguredToolSpec,
  mayMutate: (toolName: string, readOnlyHint: boolean | undefined) => boolean,
): ConfiguredToolSpec {
  const { spec } = configured;
  if (spec.type !== "function" || !mayMutate(spec.name, spec.annotations?.readOnlyHint)) return configured;
  const properties = {
    ...(spec.parameters["properties"] as Record<string, unknown> | undefined),
    security_risk: RISK_PROPERTY,
  };
  const required = [...((spec.parameters["required"] as string[] | undefined) ?? []), "security_risk"];
  return { ...configured, spec: { ...spec, parameters: { ...spec.parameters, properties, required } } };
}
