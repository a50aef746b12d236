#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError } from "./configSection.js";
import { EXIT_ABORTED, EXIT_FATAL, EXIT_USAGE, InterruptedError } from "./session.js";
import { parseSandboxFlag } from "./sandbox.js";
import { errorMessage, PACKAGE_VERSION } from "../util/index.js";

// Each command's module is imported when that command runs: start-up pays only for the code
// (and SDKs) the command uses (bench `cli`: serve-mcp's server SDK alone costs about 100 ms).

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

sandbox options (exec, serve-mcp, demo):
  --sandbox MODE     read-only | workspace-write | danger-full-access (overrides the config's
                     mode; default workspace-write: commands may write the working directory,
                     the temp directory and writable_roots, and have no network). The sandboxed
                     modes need bubblewrap (bwrap); without it their commands are refused.
                     demo default: workspace-write when bwrap is installed, else full access
  --network          let sandboxed commands use the network (sets network_access)

exec options:
  --events FILE      write every tool event to FILE as JSONL
  --timeline FILE    draw the turn's calls as an SVG Gantt chart (waiting, running, exclusive)

serve-mcp options:
  --http PORT        serve Streamable HTTP on 127.0.0.1:PORT (0 picks a free port)

config file (toml; snake_case keys in .json too):
  [tools] [runtime] [permissions] [hooks] [mcp_servers.NAME]
  [sandbox]          mode, writable_roots, network_access, readable_roots
                     (relative roots resolve against the config file's directory)
  sandbox_mode = MODE, [sandbox_workspace_write] writable_roots, network_access
                     Codex's names for the same settings; both places must agree
  [shell_environment_policy]
                     inherit = "all" | "core" | "none", ignore_default_excludes, exclude,
                     include_only (name globs), set = { NAME = "value" }; by default names
                     matching *KEY*, *SECRET*, *TOKEN* are not passed to commands

exit codes: 0 ok (tools may have failed), 1 fatal tool error, 2 bad usage or config,
130 interrupted`;

const common = {
  config: { type: "string" },
  cwd: { type: "string" },
  "log-level": { type: "string" },
  permissions: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

/** For the commands that run tools. */
const sandboxOptions = {
  sandbox: { type: "string" },
  network: { type: "boolean" },
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

function sandboxFlags(values: { sandbox?: string | boolean; network?: string | boolean }) {
  return {
    sandbox: parseSandboxFlag(typeof values.sandbox === "string" ? values.sandbox : undefined),
    network: values.network === true,
  };
}

const commands: Record<string, Command> = {
  exec: async (args) => {
    const { values, positionals } = parse(
      args,
      { ...sandboxOptions, events: { type: "string" }, timeline: { type: "string" } },
      1,
    );
    const { runExec } = await import("./exec.js");
    return runExec({
      ...commonOpts(values),
      ...sandboxFlags(values),
      inputFile: positionals[0],
      eventsFile: values.events,
      timelineFile: values.timeline,
    });
  },
  "serve-mcp": async (args) => {
    const { values } = parse(args, { ...sandboxOptions, http: { type: "string" } });
    const { runServeMcp } = await import("./serveMcp.js");
    return runServeMcp({ ...commonOpts(values), ...sandboxFlags(values), http: values.http, version: PACKAGE_VERSION });
  },
  demo: async (args) => {
    const { values } = parse(args, sandboxOptions);
    const { runDemo } = await import("./demo.js");
    return runDemo({ ...commonOpts(values), ...sandboxFlags(values) });
  },
  tools: async (args) => {
    const { values } = parse(args, { format: { type: "string" } });
    const { runTools } = await import("./tools.js");
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
