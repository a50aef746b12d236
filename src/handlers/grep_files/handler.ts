import { resolve } from "node:path";
import { FunctionCallError, type ToolOutput, type FunctionToolSpec } from "../../protocol/index.js";
import type { PolicySubject, ToolFactory, ToolHandler, ToolInvocation } from "../../registry/index.js";
import { deadline } from "../../turn/index.js";
import { newestFirst, searchWithJs, type SearchRequest } from "./fallback.js";
import { findRipgrep, runRipgrep } from "./ripgrep.js";
import { environmentOf, filesOf } from "../../sandbox/index.js";
import { errorMessage, formatSecondsExact } from "../../util/index.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 2000;
const DEFAULT_TIMEOUT_MS = 30_000;

export const GREP_FILES_SPEC: FunctionToolSpec = {
  type: "function",
  annotations: { readOnlyHint: true },
  name: "grep_files",
  description: "Finds files whose contents match the pattern and lists them by modification time.",
  strict: false,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression pattern to search for." },
      include: {
        type: "string",
        description: 'Optional glob that limits which files are searched (e.g. "*.rs" or "*.{ts,tsx}").',
      },
      path: {
        type: "string",
        description: "Directory or file path to search. Defaults to the session's working directory.",
      },
      limit: { type: "integer", description: "Maximum number of file paths to return (defaults to 100)." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

interface GrepFilesArgs {
  pattern: string;
  include?: string;
  path?: string;
  limit?: number;
}

export interface GrepFilesOptions {
  /** `rg` to run: a path, `false` for the JS search, default: `rg` when it is on `PATH`. */
  ripgrep?: string | false;
  /** Default 30 s. */
  timeoutMs?: number;
}

const fail = (message: string): FunctionCallError => FunctionCallError.respondToModel(message);

/**
 * Codex `grep_files`: paths of files whose contents match, newest first. Runs ripgrep when it
 * is available and a JS search with ripgrep's defaults otherwise (`node_modules` skipped by both).
 */
export class GrepFilesHandler implements ToolHandler {
  readonly kind = "function" as const;

  /** The searched directory (the turn's cwd when the call names none). */
  policySubject(inv: ToolInvocation): PolicySubject {
    const { pattern, path } = inv.args as GrepFilesArgs;
    const where = path ?? ".";
    return { paths: [where], summary: `grep_files ${JSON.stringify(pattern)} in ${where}` };
  }

  constructor(private readonly opts: GrepFilesOptions = {}) {}

  async handle(inv: ToolInvocation): Promise<ToolOutput> {
    const args = inv.args as GrepFilesArgs;
    const pattern = args.pattern.trim();
    if (pattern === "") throw fail("pattern must not be empty");
    const requested = args.limit ?? DEFAULT_LIMIT;
    if (requested < 1) throw fail("limit must be greater than zero");
    const root = resolve(inv.turn.cwd, args.path ?? ".");
    const env = environmentOf(inv.turn);
    await env.checkRead(args.path ?? ".", { cwd: inv.turn.cwd });
    const files = filesOf(inv.turn);
    try {
      await files.stat(root);
    } catch (err) {
      throw fail(`unable to access \`${root}\`: ${errorMessage(err)}`);
    }
    const include = args.include?.trim() || undefined;

    const rg = this.opts.ripgrep === undefined ? await findRipgrep() : this.opts.ripgrep || null;
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const limit = deadline(inv.signal, timeoutMs);
    const { signal } = limit;
    const req: SearchRequest = { pattern, include, root, signal, files };
    let results: string[];
    try {
      const cut = Math.min(requested, MAX_LIMIT);
      const found = rg ? await runRipgrep(env, rg, req, inv.turn.cwd) : undefined;
      results = found
        ? await newestFirst(files, found, cut, signal)
        : (await searchWithJs(req, cut)).map((d) => d.path);
    } catch (err) {
      if (inv.signal.aborted || err instanceof FunctionCallError) throw err;
      if (limit.expired)
        throw fail(`${rg ? "rg" : "grep_files"} timed out after ${formatSecondsExact(timeoutMs)} seconds`);
      if (err instanceof SyntaxError) throw fail(`invalid pattern: ${err.message}`);
      throw err;
    } finally {
      limit.dispose();
    }
    if (results.length === 0) return { kind: "function", body: "No matches found.", success: false };
    return { kind: "function", body: results.join("\n"), success: true };
  }
}

export interface GrepFilesToolConfig {
  /** Default true. */
  grepFiles?: boolean;
}

export const grepFilesToolFactory: ToolFactory<GrepFilesToolConfig> = (config) =>
  config.grepFiles === false
    ? []
    : [{ spec: GREP_FILES_SPEC, handler: new GrepFilesHandler(), supportsParallel: true }];
