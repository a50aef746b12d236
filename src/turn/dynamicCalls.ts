import type { ContentItem } from "../protocol/index.js";
import type { TurnContext } from "./context.js";

export interface DynamicToolResponse {
  success: boolean;
  contentItems: ContentItem[];
}

/**
 * Pairs dynamic tool calls waiting in their handler with the embedder's answers
 * (`ToolCallRuntime.respondToDynamicToolCall`). One per turn.
 */
export class DynamicCallBroker {
  private readonly waiting = new Map<string, (response: DynamicToolResponse) => void>();

  /** Waits for the answer to `callId`; rejects when the signal aborts. */
  wait(callId: string, signal: AbortSignal): Promise<DynamicToolResponse> {
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
  respond(callId: string, response: DynamicToolResponse): boolean {
    const deliver = this.waiting.get(callId);
    if (!deliver) return false;
    this.waiting.delete(callId);
    deliver(response);
    return true;
  }
}

const brokers = new WeakMap<TurnContext, DynamicCallBroker>();

export function dynamicCallBroker(turn: TurnContext): DynamicCallBroker {
  let broker = brokers.get(turn);
  if (!broker) {
    broker = new DynamicCallBroker();
    brokers.set(turn, broker);
  }
  return broker;
}
