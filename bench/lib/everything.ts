/** The reference MCP server (@modelcontextprotocol/server-everything, a devDependency) over stdio. */
import { createRequire } from "node:module";
import path from "node:path";

export function everythingServer(): { command: string; args: string[] } {
  const pkg = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json");
  return { command: process.execPath, args: [path.join(path.dirname(pkg), "dist", "index.js"), "stdio"] };
}
