import type { ApprovalDecision, ContentItem } from "../protocol/index.js";
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
 * Pairs calls waiting in dispatch for an answer from the embedder (a dynamic tool's result, a
 * person's approval or answers) with the answer, delivered by the runtime (`respondToDynamicToolCall`,
 * `respondToApproval`, `respondToUserInput`). One per turn and kind.
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

interface TurnBrokers {
  dynamic?: ResponseBroker<DynamicToolResponse>;
  approval?: ResponseBroker<ApprovalDecision>;
  userInput?: ResponseBroker<UserInputResponse | null>;
}

// Keyed by the turn, so a handler and the runtime holding the same turn meet without either
// knowing the other; gone with the turn.
const brokers = new WeakMap<TurnContext, TurnBrokers>();

function brokersOf(turn: TurnContext): TurnBrokers {
  let found = brokers.get(turn);
  if (!found) brokers.set(turn, (found = {}));
  return found;
}

export function dynamicCallBroker(turn: TurnContext): ResponseBroker<DynamicToolResponse> {
  const b = brokersOf(turn);
  return (b.dynamic ??= new ResponseBroker());
}

export function approvalBroker(turn: TurnContext): ResponseBroker<ApprovalDecision> {
  const b = brokersOf(turn);
  return (b.approval ??= new ResponseBroker());
}

/** `null`: the person dismissed the questions. */
export function userInputBroker(turn: TurnContext): ResponseBroker<UserInputResponse | null> {
  const b = brokersOf(turn);
  return (b.userInput ??= new ResponseBroker());
}
