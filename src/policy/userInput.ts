import type { ToolInvocation } from "../registry/index.js";
import {
  deadline,
  emitEvent,
  turnBroker,
  type ResponseBroker,
  type TurnContext,
  type UserInputQuestion,
  type UserInputResponse,
} from "../turn/index.js";
import { isRecord } from "../util/index.js";

const USER_INPUT = Symbol("user input answers");

/** `null`: the person dismissed the questions. */
function userInputBroker(turn: TurnContext): ResponseBroker<UserInputResponse | null> {
  return turnBroker(turn, USER_INPUT);
}

/**
 * Codex `request_user_input` (`inv.requestUserInput`): the questions go to the embedder as a
 * `user_input_request` event and the call waits for `runtime.respondToUserInput`, at most
 * `timeoutMs`. Resolves with the answers, `null` when the person dismissed the questions,
 * `undefined` when no answer came in time; rejects when the call is aborted.
 */
export async function requestUserInput<Ctx>(
  inv: ToolInvocation<Ctx>,
  questions: UserInputQuestion[],
  timeoutMs: number,
): Promise<UserInputResponse | null | undefined> {
  const limit = deadline(inv.signal, timeoutMs);
  // Waiting starts before the event so an embedder answering inside `onEvent` is heard.
  const answer = userInputBroker(inv.turn).wait(inv.callId, limit.signal);
  emitEvent(inv.turn, { type: "user_input_request", callId: inv.callId, toolName: inv.toolName, questions });
  try {
    return await answer;
  } catch (err) {
    if (!limit.expired) throw err;
    return undefined;
  } finally {
    limit.dispose();
  }
}

/**
 * `runtime.respondToUserInput`: delivers a person's answers (`null`: dismissed) to a waiting
 * call; false if none is waiting. Throws a TypeError naming the problem when `response` is not
 * a UserInputResponse.
 */
export function respondToUserInput(turn: TurnContext, callId: string, response: UserInputResponse | null): boolean {
  if (response !== null) checkUserInputResponse(response);
  return userInputBroker(turn).respond(callId, response);
}

function checkUserInputResponse(response: unknown): void {
  const answers = isRecord(response) ? response.answers : undefined;
  if (!isRecord(answers))
    throw new TypeError("respondToUserInput: response.answers must be an object keyed by question id");
  for (const [id, answer] of Object.entries(answers)) {
    const list = isRecord(answer) ? answer.answers : undefined;
    if (!Array.isArray(list) || !list.every((a) => typeof a === "string")) {
      throw new TypeError(`respondToUserInput: answers[${JSON.stringify(id)}].answers must be an array of strings`);
    }
  }
}
