export * from "./mcpServer.js";
export * from "./sidecar.js";
