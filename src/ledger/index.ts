export {
  SessionLedger,
  type LedgerCall,
  type SessionLedgerOptions,
  type SettledCall,
  type SettledOutcome,
} from "./ledger.js";
export type { QuotaConfig, QuotaLimit, TurnKey } from "./quotas.js";
export { outputTokens, type ToolUsage } from "./usage.js";
