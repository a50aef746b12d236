export { TEST_SYNC_TOOL_SPEC, TestSyncHandler, type TestSyncToolConfig, testSyncToolFactory } from "./handler.js";
