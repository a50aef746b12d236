/** The CLI's help texts: one per command, and the overview. */

const COMMON_OPTIONS = `common options:
  --config FILE      toolcall.toml, or a .json file (default: ./toolcall.toml when present)
  --cwd DIR          working directory of the turn (default: the current directory)
  --log-level LEVEL  pino level for logs on stderr (default: error; env TOOLCALL_LOG)
  --permissions MODE default | accept_edits | read_only | bypass (overrides [permissions] mode)
  --settings FILE    a Claude Code settings.json (rules, defaultMode, additionalDirectories,
                     hooks) over the config; repeatable, later files are higher scopes
  --claude-settings  read ~/.claude/settings.json, then .claude/settings.json and
                     .claude/settings.local.json of the working directory (user < project < local)`;

const SANDBOX_OPTIONS = `sandbox options:
  --sandbox MODE     read-only | workspace-write | danger-full-access (overrides the config's
                     mode; default workspace-write: commands may write the working directory,
                     the temp directory and writable_roots, and have no network). The sandboxed
                     modes need bubblewrap (bwrap); without it their commands are refused.
  --network          let sandboxed commands use the network (sets network_access; with
                     --docker-image: the engine's default network instead of none)`;

const CONTAINER_OPTIONS = `container options:
  --docker-image IMAGE
                     run every command in a container of IMAGE (one per session, the working
                     directory bound at the same path, no network unless --network, removed
                     when the command ends); over [docker] image. Not with --sandbox`;

const EXIT_CODES = `exit codes: 0 ok (tools may have failed), 1 fatal tool error, 2 bad usage or config,
130 interrupted (SIGINT), 143 terminated (SIGTERM)`;

/** `toolcall help COMMAND` and `toolcall COMMAND --help`. */
export const HELP: Record<string, string> = {
  exec: `usage: toolcall exec [FILE] [options]

Runs model output (Responses API items, Chat Completions tool calls or Anthropic tool_use
blocks; JSON, one per line) from FILE or stdin; each call
starts as its line arrives. At the end of input writes one output item per call to stdout as
JSONL, in call order. Nobody answers approvals here: a call that needs one is rejected.

  --events FILE      write every tool event to FILE as JSONL
  --timeline FILE    draw the turn's calls as an SVG Gantt chart (waiting, running, exclusive)
  --usage            print what each tool cost (calls, failures, denials, repairs, handler
                     time, output bytes and tokens) as a table on stderr at the end
  --format FORMAT    responses | chat | anthropic: lines in and out in that provider's shape
                     (a Chat assistant message or tool call in, a role "tool" message out; an
                     Anthropic message or tool_use block in, a tool_result block out);
                     default: detected per line, each answer in its line's shape
  --journal DIR      journal the turn in DIR (one JSONL file per turn, fsync'd before each
                     output is written); the turn's id is printed to stderr
  --resume TURN_ID   resume that journaled turn (needs --journal): recorded outputs are
                     written as they were, a mutating call that was running is answered
                     "interrupted", the rest run; input lines already journaled are not run again

${COMMON_OPTIONS}

${SANDBOX_OPTIONS}

${CONTAINER_OPTIONS}

${EXIT_CODES}`,
  serve: `usage: toolcall serve --stdio [options]

The JSON-RPC 2.0 sidecar for agents in any language: one message per line on stdin/stdout,
one session for many turns (MCP servers start once). Methods: initialize, turn/start,
turn/submit, turn/drain, turn/abort, call/cancel, shutdown; the server sends turn/output and
event notifications, approval/request and dynamic/call requests. See docs/sidecar.md.

  --stdio            speak on stdin/stdout (required: the only transport)

${COMMON_OPTIONS}

${SANDBOX_OPTIONS}

${CONTAINER_OPTIONS}

exit codes: 0 after shutdown or end of input, 2 bad usage, 130/143 on SIGINT/SIGTERM`,
  "serve-mcp": `usage: toolcall serve-mcp [--http PORT] [--plugin FILE]... [options]

Serves the configured tools (built-ins, plugins, proxied MCP servers) as an MCP server over
stdio, or over Streamable HTTP at http://127.0.0.1:PORT/mcp. Approvals go to the client by
elicitation when it supports it.

  --http PORT        serve Streamable HTTP on 127.0.0.1:PORT (0 picks a free port)
  --plugin FILE      an ESM module whose default export (or \`register\`) is a tool factory
                     (params, ctx) => [{ spec, handler, supportsParallel }]; repeatable
  --token TOKEN      HTTP: the bearer token clients must send (else TOOLCALL_MCP_TOKEN, else a
                     random one printed to stderr)
  --token-file FILE  HTTP: the token kept in FILE (created once, mode 0600): it survives restarts
  --print-config CLIENT
                     print the config that makes CLIENT (claude, cursor, vscode, claude-code)
                     start this command with the other options given, and exit
  --max-sessions N   HTTP: sessions at once (default 64)
  --session-idle-ms MS
                     HTTP: a session idle this long is closed (default 600000)
  --journal DIR      a call retried under the id it names in _meta ("toolcall/callId" or
                     "claudecode/toolUseId") is answered from DIR, even after a restart

${COMMON_OPTIONS}

${SANDBOX_OPTIONS}

${CONTAINER_OPTIONS}`,
  tools: `usage: toolcall tools [--format responses|chat|anthropic|mcp] [options]

Prints the tool list as the Responses API, Chat Completions, Anthropic or MCP expect it.

${COMMON_OPTIONS}`,
  mcp: `usage: toolcall mcp add|list|remove|login|logout ... [options]

  add NAME [-e KEY=VALUE]... -- COMMAND [ARGS...]
                add a stdio server to toolcall.toml (or --config FILE) as [mcp_servers.NAME]
  add NAME [-H "Name: value"]... [--bearer-token-env-var VAR] URL
                add a Streamable HTTP server (-t/--transport stdio|http: default by the URL)
  list [--json] the configured servers
  remove NAME   remove [mcp_servers.NAME] and its sub-tables
                (add and remove keep the file's comments and other tables; the result must
                load before it replaces the file)
  login NAME    authorize the MCP server NAME (OAuth: prints the URL to open, waits for the
                browser on a loopback redirect, keeps the tokens in $TOOLCALL_HOME, default
                ~/.toolcall, mode 0600)
  logout NAME   forget NAME's stored tokens

${COMMON_OPTIONS}`,
  demo: `usage: toolcall demo [options]

Runs the offline demo turn (npm start): a recorded model response, its calls run in parallel
where safe, a live status table. Default sandbox: workspace-write when bwrap is installed,
else full access.

${COMMON_OPTIONS}

${SANDBOX_OPTIONS}`,
};

/** `toolcall` alone, `toolcall help`, and after an unknown command. */
export const USAGE = `usage: toolcall <command> [options]

commands:
  exec [FILE]   run model output (Responses, Chat or Anthropic JSON, one per line) from FILE or stdin;
                write one output item per call to stdout as JSONL, in call order
  serve --stdio the JSON-RPC sidecar: many turns in one session, for agents in any language
  serve-mcp     serve the configured tools as an MCP server (stdio, or --http PORT)
  tools         print the tool list (--format responses|chat|anthropic|mcp, default responses)
  demo          run the offline demo turn
  mcp add|list|remove
                edit the [mcp_servers.NAME] tables of toolcall.toml
  mcp login|logout NAME
                authorize the MCP server NAME by OAuth, or forget its tokens
  help COMMAND  what a command does and its options (also: toolcall COMMAND --help)

  --version     print the version

${COMMON_OPTIONS}

${SANDBOX_OPTIONS.replace("sandbox options:", "sandbox options (exec, serve, serve-mcp, demo):")}

${CONTAINER_OPTIONS.replace("container options:", "container options (exec, serve, serve-mcp):")}

config file (toml; snake_case keys in .json too):
  [tools] [runtime] [permissions] [hooks] [mcp_servers.NAME]
  [sandbox]          mode, writable_roots, network_access, readable_roots, allow_unix_sockets
                     (relative roots resolve against the config file's directory;
                     network_access = ["example.com", "*.example.com"]: only those domains,
                     through a proxy)
  sandbox_mode = MODE, [sandbox_workspace_write] writable_roots, network_access
                     Codex's names for the same settings; both places must agree
  [docker]           image, network (true or a network name), user, host (a DOCKER_HOST);
                     [sandbox] does not apply while an image is set
  [shell_environment_policy]
                     inherit = "all" | "core" | "none", ignore_default_excludes, exclude,
                     include_only (name globs), set = { NAME = "value" }; by default names
                     matching *KEY*, *SECRET*, *TOKEN* are not passed to commands

${EXIT_CODES}`;
