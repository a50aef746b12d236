#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError } from "./configError.js";
import { HELP, USAGE } from "./help.js";
import { exitCodeFor, EXIT_FATAL, EXIT_USAGE, InterruptedError } from "./session.js";
import { parseSandboxFlag } from "./sandbox.js";
import { errorMessage, PACKAGE_VERSION } from "../util/index.js";

// Each command's module is imported when that command runs: start-up pays only for the code
// (and SDKs) the command uses (bench `cli`: serve-mcp's server SDK alone costs about 100 ms).

const common = {
  config: { type: "string" },
  cwd: { type: "string" },
  "log-level": { type: "string" },
  permissions: { type: "string" },
  settings: { type: "string", multiple: true },
  "claude-settings": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

/** For the commands that run tools. */
const sandboxOptions = {
  sandbox: { type: "string" },
  network: { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

/**
 * For the commands whose tools run commands of their own, the sandbox options plus where the
 * commands run; share these (and `environmentFlags`) with any command that serves tools.
 */
const environmentOptions = {
  ...sandboxOptions,
  "docker-image": { type: "string" },
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
  settings?: Array<string | boolean>;
  "claude-settings"?: string | boolean;
}) {
  const str = (v: string | boolean | undefined): string | undefined => (typeof v === "string" ? v : undefined);
  return {
    configPath: str(values.config),
    cwd: str(values.cwd),
    logLevel: str(values["log-level"]),
    permissions: str(values.permissions),
    settings: values.settings?.flatMap((v) => (typeof v === "string" ? [v] : [])),
    claudeSettings: values["claude-settings"] === true,
  };
}

function sandboxFlags(values: { sandbox?: string | boolean; network?: string | boolean }) {
  return {
    sandbox: parseSandboxFlag(typeof values.sandbox === "string" ? values.sandbox : undefined),
    network: values.network === true,
  };
}

function environmentFlags(values: {
  sandbox?: string | boolean;
  network?: string | boolean;
  "docker-image"?: string | boolean;
}) {
  const image = values["docker-image"];
  if (image === "" || (typeof image === "string" && image.startsWith("-"))) {
    throw new ConfigError(`--docker-image: expected an image name, got ${JSON.stringify(image)}`);
  }
  return { ...sandboxFlags(values), dockerImage: typeof image === "string" ? image : undefined };
}

const commands: Record<string, Command> = {
  exec: async (args) => {
    const { values, positionals } = parse(
      args,
      {
        ...environmentOptions,
        events: { type: "string" },
        format: { type: "string" },
        timeline: { type: "string" },
        journal: { type: "string" },
        resume: { type: "string" },
        usage: { type: "boolean" },
      },
      1,
    );
    if (values.resume !== undefined && values.journal === undefined)
      throw new ConfigError("--resume needs --journal DIR: the journal the turn was written to");
    const [{ runExec }, { parseFormat }] = await Promise.all([import("./exec.js"), import("./formats.js")]);
    return runExec({
      ...commonOpts(values),
      ...environmentFlags(values),
      inputFile: positionals[0],
      eventsFile: values.events,
      format: parseFormat(values.format),
      timelineFile: values.timeline,
      journalDir: values.journal,
      resumeTurnId: values.resume,
      usage: values.usage === true,
    });
  },
  serve: async (args) => {
    const { values } = parse(args, { ...environmentOptions, stdio: { type: "boolean" } });
    const { runServe } = await import("./serve.js");
    return runServe({ ...commonOpts(values), ...environmentFlags(values), stdio: values.stdio === true });
  },
  "serve-mcp": async (args) => {
    const { values } = parse(args, {
      ...environmentOptions,
      http: { type: "string" },
      plugin: { type: "string", multiple: true },
      token: { type: "string" },
      "token-file": { type: "string" },
      "print-config": { type: "string" },
      "max-sessions": { type: "string" },
      "session-idle-ms": { type: "string" },
      journal: { type: "string" },
    });
    const [{ runServeMcp }, { withoutPrintConfig }] = await Promise.all([
      import("./serveMcp.js"),
      import("./clientConfig.js"),
    ]);
    return runServeMcp({
      ...commonOpts(values),
      ...environmentFlags(values),
      http: values.http,
      plugins: values.plugin,
      token: values.token,
      tokenFile: values["token-file"],
      printConfig: values["print-config"],
      serveArgs: withoutPrintConfig(args),
      maxSessions: values["max-sessions"],
      sessionIdleMs: values["session-idle-ms"],
      journalDir: values.journal,
      version: PACKAGE_VERSION,
    });
  },
  demo: async (args) => {
    const { values } = parse(args, sandboxOptions);
    const { runDemo } = await import("./demo.js");
    return runDemo({ ...commonOpts(values), ...sandboxFlags(values) });
  },
  mcp: async (args) => {
    const action = args[0];
    if (action === "add" || action === "list" || action === "remove") {
      const { values, positionals } = parse(
        args.slice(1),
        {
          env: { type: "string", short: "e", multiple: true },
          header: { type: "string", short: "H", multiple: true },
          transport: { type: "string", short: "t" },
          "bearer-token-env-var": { type: "string" },
          json: { type: "boolean" },
        },
        Infinity,
      );
      const { runMcpEdit } = await import("./mcpEdit.js");
      return runMcpEdit({
        ...commonOpts(values),
        action,
        positionals,
        env: values.env,
        header: values.header,
        transport: values.transport,
        bearerTokenEnvVar: values["bearer-token-env-var"],
        json: values.json,
      });
    }
    const { values, positionals } = parse(args, {}, 2);
    const { runMcpAuth } = await import("./mcpLogin.js");
    return runMcpAuth({ ...commonOpts(values), action: positionals[0], server: positionals[1] });
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
  if (name === "--version" || name === "-V" || name === "version") {
    process.stdout.write(`toolcall ${PACKAGE_VERSION}\n`);
    return 0;
  }
  if (name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" ? rest[0] : undefined;
    if (topic === undefined) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const help = HELP[topic];
    if (help === undefined) {
      process.stderr.write(`toolcall help: unknown command: ${topic} (commands: ${Object.keys(HELP).join(", ")})\n`);
      return EXIT_USAGE;
    }
    process.stdout.write(`${help}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`toolcall: unknown command: ${name}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  // After `--` come a server's own arguments (`mcp add NAME -- cmd --help`).
  const flags = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (flags.includes("--help") || flags.includes("-h")) {
    process.stdout.write(`${HELP[name] ?? USAGE}\n`);
    return 0;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof InterruptedError) {
      process.stderr.write(`toolcall ${name}: ${err.message}\n`);
      return exitCodeFor(err.signal);
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
