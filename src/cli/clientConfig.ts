import { randomBytes } from "node:crypto";
import { readFile, stat, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage } from "../util/index.js";
import { ConfigError } from "./config.js";

/** The desktop clients `serve-mcp --print-config` writes a snippet for. */
export const CLIENTS = ["claude", "cursor", "vscode", "claude-code"] as const;
export type DesktopClient = (typeof CLIENTS)[number];

export function parseClient(value: string): DesktopClient {
  if ((CLIENTS as readonly string[]).includes(value)) return value as DesktopClient;
  throw new ConfigError(`--print-config: expected one of ${CLIENTS.join(", ")}, got ${JSON.stringify(value)}`);
}

/**
 * The snippet that makes `client` start this very command (`node <this bin> serve-mcp ARGS`):
 * absolute paths, never `npx toolcall` (which outside the project asks the registry for
 * another package). Claude Desktop and Cursor read `mcpServers`, VS Code `servers`, Claude
 * Code takes a `claude mcp add` command line.
 */
export function clientConfig(client: DesktopClient, serveArgs: readonly string[]): string {
  const command = process.execPath;
  const args = [resolve(process.argv[1] ?? "toolcall"), "serve-mcp", ...serveArgs];
  switch (client) {
    case "claude":
    case "cursor":
      return JSON.stringify({ mcpServers: { toolcall: { command, args } } }, null, 2);
    case "vscode":
      return JSON.stringify({ servers: { toolcall: { type: "stdio", command, args } } }, null, 2);
    case "claude-code":
      return ["claude", "mcp", "add", "toolcall", "--", command, ...args].map(shellWord).join(" ");
  }
}

const shellWord = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`);

/**
 * The HTTP bearer token kept in `path`, so a saved client config survives restarts: created
 * once (random, mode 0600); a file others can read is refused rather than trusted.
 */
export async function tokenFromFile(path: string): Promise<string> {
  const token = randomBytes(24).toString("base64url");
  try {
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: "wx" });
    return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST")
      throw new ConfigError(`--token-file: cannot create ${path}: ${errorMessage(err)}`);
  }
  const info = await stat(path);
  if (!info.isFile()) throw new ConfigError(`--token-file: ${path} is not a file`);
  if ((info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8);
    throw new ConfigError(`--token-file: ${path} is readable by others (mode ${mode}): chmod 600 it`);
  }
  const kept = (await readFile(path, "utf8")).trim();
  if (kept === "") throw new ConfigError(`--token-file: ${path} is empty`);
  return kept;
}

/** serve-mcp's arguments less `--print-config CLIENT`: what the printed config starts. */
export function withoutPrintConfig(args: readonly string[]): string[] {
  const out: string[] = [];
  let skip = false;
  for (const a of args) {
    if (skip) skip = false;
    else if (a === "--print-config") skip = true;
    else if (!a.startsWith("--print-config=")) out.push(a);
  }
  return out;
}
