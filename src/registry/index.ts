export * from "./handler.js";
export * from "./arguments.js";
export * from "./registry.js";
export * from "./builder.js";
export * from "./mcpSource.js";
export * from "./factory.js";
export * from "./middleware.js";
export * from "./fileReads.js";
