export { type RequestUserInputToolConfig, requestUserInputToolFactory } from "./handler.js";
