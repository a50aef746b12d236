import type { ContentItem } from "../protocol/index.js";
import type { TurnContext } from "./context.js";

export interface DynamicToolResponse {
  success: boolean;
  contentItems: ContentItem[];
}

/** One question of a `request_user_input` call, as the embedder shows it (Codex's shape). */
export interface UserInputQuestion {
  id: string;
  header: string;
  question: string;
  /** Always true: the person may answer in their own words besides the options (as in Codex). */
  isOther: boolean;
  options: Array<{ label: string; description: string }>;
}

/**
 * A person's answers, by question id (Codex `RequestUserInputResponse`): the chosen option
 * labels and/or their own words. The model reads it as JSON.
 */
export interface UserInputResponse {
  answers: Record<string, { answers: string[] }>;
}

/**
 * Pairs calls waiting for an answer from outside (a dynamic tool's result, a person's approval
 * or answers) with the answer, delivered through the runtime (`respondToDynamicToolCall`,
 * `respondToApproval`, `respondToUserInput`). One per turn and kind (`turnBroker`).
 */
export class ResponseBroker<T> {
  private readonly waiting = new Map<string, (response: T) => void>();

  /** Waits for the answer to `callId`; rejects with the signal's reason when it aborts. */
  wait(callId: string, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiting.delete(callId);
        reject(signal.reason);
      };
      this.waiting.set(callId, (response) => {
        signal.removeEventListener("abort", onAbort);
        resolve(response);
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** False when no call with that id is waiting (unknown, already answered, timed out). */
  respond(callId: string, response: T): boolean {
    const deliver = this.waiting.get(callId);
    if (!deliver) return false;
    this.waiting.delete(callId);
    deliver(response);
    return true;
  }
}

// Keyed by the turn, so whoever waits and the runtime holding the same turn meet without either
// knowing the other; gone with the turn.
const brokers = new WeakMap<TurnContext, Map<symbol, ResponseBroker<unknown>>>();

/** The turn's broker of one kind (`kind`: a symbol its owner keeps, typed by its answers). */
export function turnBroker<T>(turn: TurnContext, kind: symbol): ResponseBroker<T> {
  let kinds = brokers.get(turn);
  if (!kinds) brokers.set(turn, (kinds = new Map<symbol, ResponseBroker<unknown>>()));
  let broker = kinds.get(kind);
  if (!broker) kinds.set(kind, (broker = new ResponseBroker()));
  return broker as ResponseBroker<T>;
}

const DYNAMIC = Symbol("dynamic tool results");

export function dynamicCallBroker(turn: TurnContext): ResponseBroker<DynamicToolResponse> {
  return turnBroker(turn, DYNAMIC);
}
