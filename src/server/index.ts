export * from "./mcpServer.js";
