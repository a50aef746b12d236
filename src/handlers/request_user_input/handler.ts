import { FunctionCallError, type FunctionToolSpec, type ToolOutput } from "../../protocol/index.js";
import type { ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import type { UserInputQuestion } from "../../turn/index.js";
import { formatSecondsExact } from "../../util/index.js";

const DEFAULT_USER_INPUT_TIMEOUT_MS = 600_000;

const string = (description: string): { type: "string"; description: string } => ({ type: "string", description });

/**
 * Codex 0.171 `request_user_input`, its schema and descriptions verbatim. Its description's
 * last sentence ("This tool is only available in Plan mode.") is left out: Codex offers it in
 * Plan mode only, we whenever the embedder opts in, so the sentence would be false here.
 */
const REQUEST_USER_INPUT_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "request_user_input",
  description: "Request user input for one to three short questions and wait for the response.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      questions: {
        type: "array",
        description: "Questions to show the user. Prefer 1 and do not exceed 3",
        items: {
          type: "object",
          properties: {
            header: string("Short header label shown in the UI (12 or fewer chars)."),
            id: string("Stable identifier for mapping answers (snake_case)."),
            options: {
              type: "array",
              description:
                'Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with "(Recommended)". Do not include an "Other" option in this list; the client will add a free-form "Other" option automatically.',
              items: {
                type: "object",
                properties: {
                  description: string("One short sentence explaining impact/tradeoff if selected."),
                  label: string("User-facing label (1-5 words)."),
                },
                required: ["label", "description"],
                additionalProperties: false,
              },
            },
            question: string("Single-sentence prompt shown to the user."),
          },
          required: ["id", "header", "question", "options"],
          additionalProperties: false,
        },
      },
    },
    required: ["questions"],
    additionalProperties: false,
  },
};

type Args = { questions: Array<Omit<UserInputQuestion, "isOther">> };

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

/**
 * Codex `request_user_input`: the questions go to the embedder as a `user_input_request` event
 * (each with `isOther: true`, as Codex shows them) and the call waits for
 * `runtime.respondToUserInput(callId, answers)`, at most `timeoutMs` (Codex waits forever).
 * The model reads the answers as Codex's JSON: `{"answers":{"<id>":{"answers":[...]}}}`.
 */
class RequestUserInputHandler implements ToolHandler {
  readonly kind = "function" as const;

  constructor(private readonly timeoutMs: number = DEFAULT_USER_INPUT_TIMEOUT_MS) {}

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const { questions } = inv.args as Args;
    if (questions.some((q) => q.options.length === 0)) {
      throw fail("request_user_input requires non-empty options for every question");
    }
    // Asking a person is the policy layer's (its event, its broker, the timeout): reached
    // through the invocation. Built by hand without it, nobody can answer: dismissed.
    const response = await inv.requestUserInput?.(
      questions.map(({ id, header, question, options }) => ({ id, header, question, isOther: true, options })),
      this.timeoutMs,
    );
    if (response === undefined && inv.requestUserInput) {
      throw fail(`request_user_input got no response within ${formatSecondsExact(this.timeoutMs)}s`);
    }
    if (!response) throw fail("request_user_input was cancelled before receiving a response");
    return { kind: "function", body: JSON.stringify({ answers: response.answers }), success: true };
  }
}

export interface RequestUserInputToolConfig {
  /** Offer `request_user_input`, answered through `runtime.respondToUserInput`. Default false. */
  requestUserInput?: boolean;
  /** How long a `request_user_input` call waits for the answers. Default 600_000 (10 min). */
  userInputTimeoutMs?: number;
}

export const requestUserInputToolFactory: ToolFactory<RequestUserInputToolConfig> = (config) => {
  if (config.requestUserInput !== true) return [];
  const ms = config.userInputTimeoutMs ?? DEFAULT_USER_INPUT_TIMEOUT_MS;
  if (!Number.isInteger(ms) || ms < 1) {
    throw new RangeError(`userInputTimeoutMs must be a positive integer, got ${String(config.userInputTimeoutMs)}`);
  }
  return [{ spec: REQUEST_USER_INPUT_SPEC, handler: new RequestUserInputHandler(ms), supportsParallel: true }];
};
