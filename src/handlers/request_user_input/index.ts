export {
  DEFAULT_USER_INPUT_TIMEOUT_MS,
  REQUEST_USER_INPUT_SPEC,
  RequestUserInputHandler,
  type RequestUserInputToolConfig,
  requestUserInputToolFactory,
} from "./handler.js";
