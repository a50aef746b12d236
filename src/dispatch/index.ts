export { PreparedCall, type DispatchHost, type DispatchScope } from "./preparedCall.js";
export { dispatch } from "./pipeline.js";
export { dispatchAwaited, type DispatchOptions, type DispatchResult } from "./awaited.js";
