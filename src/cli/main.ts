#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError } from "./config.js";
import { runExec } from "./exec.js";
import { EXIT_ABORTED, EXIT_FATAL, EXIT_USAGE, InterruptedError } from "./session.js";
import { runDemo } from "./demo.js";
import { runServeMcp } from "./serveMcp.js";
import { runTools } from "./tools.js";
import { errorMessage, PACKAGE_VERSION } from "../util/index.js";

// The same relative place from src/cli and dist/cli.

const USAGE = `usage: toolcall <command> [options]

commands:
  exec [FILE]   run model output items (Responses API JSON, one per line) from FILE or stdin;
                write one output item per call to stdout as JSONL, in call order
  serve-mcp     serve the configured tools as an MCP server (stdio, or --http PORT)
  tools         print the tool list (--format responses|chat|mcp, default responses)
  demo          run the offline demo turn

common options:
  --config FILE      toolcall.toml, or a .json file (default: ./toolcall.toml when present)
  --cwd DIR          working directory of the turn (default: the current directory)
  --log-level LEVEL  pino level for logs on stderr (default: error; env TOOLCALL_LOG)
  --permissions MODE default | accept_edits | read_only | bypass (overrides [permissions] mode);
                     nobody answers approvals here: a call that needs one is rejected

exec options:
  --events FILE      write every tool event to FILE as JSONL

serve-mcp options:
  --http PORT        serve Streamable HTTP on 127.0.0.1:PORT (0 picks a free port)

exit codes: 0 ok (tools may have failed), 1 fatal tool error, 2 bad usage or config,
130 interrupted`;

const common = {
  config: { type: "string" },
  cwd: { type: "string" },
  "log-level": { type: "string" },
  permissions: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

type Command = (args: string[]) => Promise<number>;

function parse<O extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: O, positionals = 0) {
  const parsed = parseArgs({
    args,
    options: { ...common, ...options },
    allowPositionals: positionals > 0,
    strict: true,
  });
  if (parsed.positionals.length > positionals) {
    throw new ConfigError(`unexpected argument: ${parsed.positionals[positionals] ?? ""}`);
  }
  return parsed;
}

function commonOpts(values: {
  config?: string | boolean;
  cwd?: string | boolean;
  "log-level"?: string | boolean;
  permissions?: string | boolean;
}) {
  const str = (v: string | boolean | undefined): string | undefined => (typeof v === "string" ? v : undefined);
  return {
    configPath: str(values.config),
    cwd: str(values.cwd),
    logLevel: str(values["log-level"]),
    permissions: str(values.permissions),
  };
}

const commands: Record<string, Command> = {
  exec: async (args) => {
    const { values, positionals } = parse(args, { events: { type: "string" } }, 1);
    return runExec({ ...commonOpts(values), inputFile: positionals[0], eventsFile: values.events });
  },
  "serve-mcp": async (args) => {
    const { values } = parse(args, { http: { type: "string" } });
    return runServeMcp({ ...commonOpts(values), http: values.http, version: PACKAGE_VERSION });
  },
  demo: async (args) => {
    const { values } = parse(args, {});
    return runDemo(commonOpts(values));
  },
  tools: async (args) => {
    const { values } = parse(args, { format: { type: "string" } });
    return runTools({ ...commonOpts(values), format: values.format });
  },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`toolcall: unknown command: ${name}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof InterruptedError) {
      process.stderr.write(`toolcall ${name}: ${err.message}\n`);
      return EXIT_ABORTED;
    }
    // parseArgs throws TypeErrors with a code for unknown options and missing values.
    const usage =
      err instanceof ConfigError || (err as { code?: unknown }).code?.toString().startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`toolcall ${name}: ${errorMessage(err)}\n`);
    return usage ? EXIT_USAGE : EXIT_FATAL;
  }
}

// A reader that went away (`toolcall demo | head`) is not an error of ours.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // stdin or a lingering handle must not keep a finished command alive.
    setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`toolcall: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(EXIT_FATAL);
  },
);
