import { randomBytes } from "node:crypto";
import { chmod, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { errorMessage, isRecord } from "../util/index.js";
import { ConfigError, loadCliConfig } from "./config.js";
import { resolveCwd } from "./session.js";

export interface McpEditOptions {
  action: "add" | "list" | "remove";
  /** add: NAME then the URL or the command and its arguments; remove: NAME. */
  positionals: string[];
  configPath?: string | undefined;
  cwd?: string | undefined;
  /** `-e KEY=VALUE`: the stdio server's environment. */
  env?: string[] | undefined;
  /** `-H "Name: value"`: headers of an HTTP server. */
  header?: string[] | undefined;
  transport?: string | undefined;
  bearerTokenEnvVar?: string | undefined;
  json?: boolean | undefined;
}

/** A server name becomes part of tool names (`mcp__NAME__tool`): Codex's rule. */
const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * `toolcall mcp add|list|remove`: edits the `[mcp_servers.NAME]` tables of `toolcall.toml`
 * (or `--config FILE`) the way `claude mcp add` and `codex mcp add` do. The file is edited as
 * text, so comments and every other table stay as they were; the result must parse to the old
 * document with exactly that server added or removed and load as a config before it replaces
 * the file (one rename: a reader sees the old file or the new one).
 */
export async function runMcpEdit(opts: McpEditOptions): Promise<number> {
  const cwd = await resolveCwd(opts.cwd);
  const file = path.resolve(cwd, opts.configPath ?? "toolcall.toml");
  if (opts.action === "list") return list(file, cwd, opts);
  const [name, ...rest] = opts.positionals;
  if (name === undefined) throw new ConfigError(`mcp ${opts.action}: expected a server name`);
  if (!NAME.test(name)) {
    throw new ConfigError(`mcp ${opts.action}: a server name is letters, digits, _ and -, got ${JSON.stringify(name)}`);
  }
  if (!/\.toml$/i.test(file)) {
    throw new ConfigError(`mcp ${opts.action}: ${file} is not a .toml file; edit a JSON config with its own client`);
  }
  const target = await realpath(file).catch(() => file); // a symlinked config is edited where it lives
  const text = await readFile(target, "utf8").catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" && opts.action === "add") return "";
    throw new ConfigError(`${file}: cannot read config: ${errorMessage(err)}`);
  });
  const { parse, stringify } = await import("smol-toml");
  let before: Record<string, unknown>;
  try {
    before = parse(text);
  } catch (err) {
    throw new ConfigError(`${file}: invalid TOML: ${errorMessage(err).split("\n")[0]}`);
  }
  const servers = isRecord(before["mcp_servers"]) ? before["mcp_servers"] : {};
  let edited: string;
  let expected: Record<string, unknown>;
  if (opts.action === "add") {
    if (Object.hasOwn(servers, name)) {
      throw new ConfigError(`MCP server '${name}' already exists in ${file}; \`toolcall mcp remove ${name}\` first`);
    }
    const entry = serverEntry(name, rest, opts);
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    const table = stringify({ mcp_servers: { [name]: entry } }).replace(/\n/g, eol);
    // smol-toml ends the table with a newline; one blank line sets it apart from what was there.
    edited = `${text}${text === "" || text.endsWith(eol) ? "" : eol}${text === "" ? "" : eol}${table}`;
    expected = { ...before, mcp_servers: { ...servers, [name]: entry } };
  } else {
    if (rest.length > 0) throw new ConfigError(`unexpected argument: ${rest[0] ?? ""}`);
    if (!Object.hasOwn(servers, name)) {
      const known = Object.keys(servers).join(", ") || "none";
      throw new ConfigError(`no MCP server '${name}' in ${file} (servers: ${known})`);
    }
    edited = withoutTables(text, name);
    const { [name]: _removed, ...others } = servers;
    expected = { ...before, mcp_servers: others };
  }
  await replaceChecked(target, file, cwd, edited, expected, name, opts.action);
  process.stderr.write(
    `${opts.action === "add" ? "added" : "removed"} MCP server '${name}' ${opts.action === "add" ? "to" : "from"} ${file}\n`,
  );
  return 0;
}

/** The `[mcp_servers.NAME]` table `add` writes, from Claude Code's and Codex's arguments. */
function serverEntry(name: string, rest: string[], opts: McpEditOptions): Record<string, unknown> {
  const [first, ...args] = rest;
  if (first === undefined) {
    throw new ConfigError(
      `mcp add ${name}: expected a URL or a command (\`toolcall mcp add NAME -- COMMAND ARGS...\`)`,
    );
  }
  const transport = opts.transport ?? (/^https?:\/\//i.test(first) ? "http" : "stdio");
  if (transport !== "stdio" && transport !== "http") {
    throw new ConfigError(`--transport: expected stdio or http, got ${JSON.stringify(transport)}`);
  }
  if (transport === "http") {
    let url: URL;
    try {
      url = new URL(first);
    } catch {
      throw new ConfigError(`mcp add ${name}: expected an http(s) URL, got ${JSON.stringify(first)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ConfigError(`mcp add ${name}: expected an http(s) URL, got ${JSON.stringify(first)}`);
    }
    if (args.length > 0) throw new ConfigError(`unexpected argument: ${args[0] ?? ""}`);
    if (opts.env?.length)
      throw new ConfigError(`mcp add ${name}: --env is for stdio servers; an HTTP server takes --header`);
    const headers = pairs(opts.header, ":", "--header", '"Name: value"');
    return {
      url: first,
      ...(opts.bearerTokenEnvVar !== undefined && { bearer_token_env_var: opts.bearerTokenEnvVar }),
      ...(Object.keys(headers).length > 0 && { http_headers: headers }),
    };
  }
  if (opts.header?.length || opts.bearerTokenEnvVar !== undefined) {
    throw new ConfigError(`mcp add ${name}: --header and --bearer-token-env-var are for HTTP servers`);
  }
  const env = pairs(opts.env, "=", "--env", "KEY=VALUE");
  return { command: first, ...(args.length > 0 && { args }), ...(Object.keys(env).length > 0 && { env }) };
}

/** `KEY=VALUE` / `Name: value` flags as a table; a flag without the separator is refused. */
function pairs(flags: string[] | undefined, sep: string, flag: string, shape: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of flags ?? []) {
    const at = raw.indexOf(sep);
    const key = at > 0 ? raw.slice(0, at).trim() : "";
    if (key === "") throw new ConfigError(`${flag}: expected ${shape}, got ${JSON.stringify(raw)}`);
    out[key] = raw.slice(at + sep.length).trim();
  }
  return out;
}

/** A table header line: `[a.b]`, `[[a.b]]`, with an optional comment. */
const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$/;

/**
 * The text less the `[mcp_servers.NAME]` table and its sub-tables (`[mcp_servers.NAME.env]`);
 * the comment lines just above the next table stay with it.
 */
function withoutTables(text: string, name: string): string {
  const lines = text.split(/(?<=\n)/);
  const bare = (key: string): string =>
    key.replace(/\s*\.\s*/g, ".").replace(/"([A-Za-z0-9_-]+)"|'([A-Za-z0-9_-]+)'/g, "$1$2");
  const own = (key: string): boolean => {
    const k = bare(key);
    return k === `mcp_servers.${name}` || k.startsWith(`mcp_servers.${name}.`);
  };
  const headers = lines.map((line) => HEADER.exec(line.trimEnd())?.[1]);
  const keep = lines.map(() => true);
  for (let i = 0; i < lines.length; i++) {
    const key = headers[i];
    if (key === undefined || !own(key)) continue;
    let end = i + 1;
    while (end < lines.length && (headers[end] === undefined || own(headers[end] ?? ""))) end++;
    if (end < lines.length) while (end > i + 1 && /^\s*#/.test(lines[end - 1] ?? "")) end--;
    for (let j = i; j < end; j++) keep[j] = false;
    i = end - 1;
  }
  return lines.filter((_, i) => keep[i]).join("");
}

/**
 * Writes `edited` beside the file, checks it parses to `expected` and loads as a config, then
 * renames it over the file (keeping its mode). Anything else leaves the file untouched.
 */
async function replaceChecked(
  target: string,
  file: string,
  cwd: string,
  edited: string,
  expected: Record<string, unknown>,
  name: string,
  action: string,
): Promise<void> {
  const { parse } = await import("smol-toml");
  let after: unknown;
  try {
    after = parse(edited);
  } catch {
    after = undefined;
  }
  // smol-toml's tables have no prototype: compare as plain data.
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null)) as unknown;
  if (!isDeepStrictEqual(plain(after), plain(expected))) {
    throw new ConfigError(
      `mcp ${action}: ${file} defines its servers in a way this command cannot edit safely (not as [mcp_servers.${name}] tables); edit it by hand`,
    );
  }
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.toml`);
  try {
    const mode = (await stat(target).catch(() => undefined))?.mode;
    await writeFile(tmp, edited, { mode: 0o600, flag: "wx" });
    if (mode !== undefined) await chmod(tmp, mode & 0o7777);
    // Relative paths in the file resolve against its directory: the copy sits beside it.
    await loadCliConfig({ configPath: tmp, dir: cwd });
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    if (err instanceof ConfigError) {
      throw new ConfigError(`mcp ${action}: the result would not load: ${err.message.replaceAll(tmp, file)}`);
    }
    throw new ConfigError(`mcp ${action}: cannot write ${file}: ${errorMessage(err)}`);
  }
}

/** `toolcall mcp list`: the servers the config names, one line each (or JSON with `--json`). */
async function list(file: string, cwd: string, opts: McpEditOptions): Promise<number> {
  if (opts.positionals.length > 0) throw new ConfigError(`unexpected argument: ${opts.positionals[0] ?? ""}`);
  const config = await loadCliConfig({ configPath: opts.configPath, dir: cwd });
  const servers = Object.entries(config.mcpServers);
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(Object.fromEntries(servers), null, 2)}\n`);
    return 0;
  }
  if (servers.length === 0) {
    process.stderr.write(`no MCP servers in ${config.file ?? `${file} (no such file)`}\n`);
    return 0;
  }
  const width = Math.max(...servers.map(([name]) => name.length));
  for (const [name, server] of servers) {
    const where = server.url ?? [server.command ?? "", ...(server.args ?? [])].join(" ");
    const state = server.enabled === false ? "  (disabled)" : "";
    process.stdout.write(`${name.padEnd(width)}  ${server.url === undefined ? "stdio" : "http "}  ${where}${state}\n`);
  }
  return 0;
}
