export { SessionLedger } from "./ledger.js";
export type { QuotaConfig, QuotaLimit } from "./quotas.js";
export { outputTokens, type ToolUsage } from "./usage.js";
