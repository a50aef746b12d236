import { closeSync, openSync, writeSync } from "node:fs";
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { OutputLike } from "../adapters/index.js";
import { outputCallId, type ResponseItem, type UnknownItem } from "../protocol/index.js";
import { ToolCallFailure } from "../router/index.js";
import { FatalToolCallError, ToolCallRuntime } from "../runtime/index.js";
import { checkTurnId, FileJournal, type ToolEvent } from "../turn/index.js";
import { errorMessage } from "../util/index.js";
import { ConfigError } from "./config.js";
import { detectFormat, itemsOf, outputValues, type WireFormat } from "./formats.js";
import { sandboxWarning } from "./sandbox.js";
import { CallTimeline, timelineSvg } from "./timeline.js";
import { usageTable } from "./usageTable.js";
import {
  exitCodeFor,
  EXIT_FATAL,
  EXIT_OK,
  onInterrupt,
  openSession,
  stderrLogger,
  type CommonOptions,
} from "./session.js";

export interface ExecOptions extends CommonOptions {
  /** Read items from this file instead of stdin. */
  inputFile?: string | undefined;
  /** Write every `ToolEvent` to this file as JSONL. */
  eventsFile?: string | undefined;
  /** The provider shape of input and output lines; undefined: detected per line. */
  format?: WireFormat | undefined;
  /** Draw the turn's calls into this file as an SVG Gantt chart. */
  timelineFile?: string | undefined;
  /** Journal the turn in this directory (DESIGN section 17). */
  journalDir?: string | undefined;
  /** Resume this journaled turn (with `journalDir`). */
  resumeTurnId?: string | undefined;
  /** Print what each tool cost as a table on stderr at the end. */
  usage?: boolean | undefined;
}

function say(message: string): void {
  process.stderr.write(`toolcall exec: ${message}\n`);
}

function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === "") {
      resolve();
      return;
    }
    process.stdout.write(text, () => {
      resolve();
    });
  });
}

/**
 * `toolcall exec`: each input line holds model output (a Responses item, a Chat Completions
 * message or tool call, an Anthropic message or tool_use block: `--format`, else detected per
 * line); each call starts as its line arrives; at the end of input every output is written to
 * stdout, one JSON line per call, in call order, in the shape of the line it came from.
 * SIGINT/SIGTERM abort the turn (outputs are still written; exit 130).
 */
export async function runExec(opts: ExecOptions): Promise<number> {
  const logger = stderrLogger(opts.logLevel);
  let input: Readable = process.stdin;
  if (opts.inputFile !== undefined) {
    const file = path.resolve(opts.inputFile);
    const handle = await open(file, "r").catch((err: unknown) => {
      throw new ConfigError(`cannot read input file: ${errorMessage(err)}`);
    });
    input = handle.createReadStream();
  }
  if (opts.resumeTurnId !== undefined) {
    try {
      checkTurnId(opts.resumeTurnId);
    } catch (err) {
      throw new ConfigError(`--resume: ${errorMessage(err)}`);
    }
  }
  let journal: FileJournal | undefined;
  if (opts.journalDir !== undefined) {
    try {
      journal = new FileJournal(path.resolve(opts.journalDir));
    } catch (err) {
      throw new ConfigError(`--journal: cannot use ${opts.journalDir}: ${errorMessage(err)}`);
    }
  }
  let events: number | undefined;
  if (opts.eventsFile !== undefined) {
    try {
      events = openSync(path.resolve(opts.eventsFile), "w");
    } catch (err) {
      throw new ConfigError(`--events: cannot open ${opts.eventsFile}: ${errorMessage(err)}`);
    }
  }
  const timeline = opts.timelineFile !== undefined ? new CallTimeline() : undefined;
  const onEvent = (event: ToolEvent): void => {
    timeline?.onEvent(event);
    if (events !== undefined) writeSync(events, `${JSON.stringify(event)}\n`);
  };
  const session = await openSession({ ...opts, logger, onEvent, ...(journal && { journal }) }).catch(
    async (err: unknown) => {
      if (events !== undefined) closeSync(events);
      await journal?.close();
      throw err;
    },
  );
  const { router, turn, config } = session;
  const warning = await sandboxWarning(session.environment);
  if (warning !== undefined) say(warning);
  const max = config.runtime.maxConcurrency;
  const runtimeOpts = max !== undefined ? { maxConcurrency: max } : {};
  let runtime: ToolCallRuntime;
  try {
    runtime =
      opts.resumeTurnId !== undefined
        ? await ToolCallRuntime.resume(router, turn, { ...runtimeOpts, turnId: opts.resumeTurnId })
        : new ToolCallRuntime(router, turn, runtimeOpts);
  } catch (err) {
    await session.close();
    await journal?.close();
    if (events !== undefined) closeSync(events);
    throw new ConfigError(`--resume ${opts.resumeTurnId ?? ""}: ${errorMessage(err)}`);
  }
  if (journal) say(`turn ${runtime.turnId} (journal ${journal.dir})`);

  const lines = createInterface({ input, crlfDelay: Infinity });
  let interrupted: NodeJS.Signals | undefined;
  const stopHandlingSignals = onInterrupt((signal) => {
    interrupted = signal;
    say(`${signal}: aborting the turn`);
    runtime.abort("aborted by user");
    lines.close();
  });

  // Accepted call ids in submission order, to place a fatal call's own output among the others.
  const acceptedCallIds: string[] = [];
  // The format of the line each accepted call came in: its answer goes out in the same shape.
  const formatOf = new Map<string, WireFormat>();
  let lineNo = 0;
  try {
    try {
      for await (const line of lines) {
        lineNo++;
        // A UTF-8 BOM (Windows editors, PowerShell's Out-File) is not part of the first item.
        const text = lineNo === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
        if (text.trim() === "") continue;
        handleLine(text, lineNo);
      }
    } catch (err) {
      say(`cannot read input: ${errorMessage(err)}`);
    }

    let outputs: OutputLike[];
    let exitCode = interrupted ? exitCodeFor(interrupted) : EXIT_OK;
    try {
      outputs = await runtime.drainOutcomes();
    } catch (err) {
      if (!(err instanceof FatalToolCallError)) throw err;
      say(`fatal error in call ${err.callId}: ${err.message}`);
      outputs = withFatalOutput(err);
      if (!interrupted) exitCode = EXIT_FATAL;
    }
    await runtime.endTurn();
    const answers = outputs.map((output) => {
      const callId = outputCallId("item" in output ? output.item : output);
      return { output, format: formatOf.get(callId) ?? "responses" };
    });
    await writeOut(
      outputValues(answers)
        .map((o) => `${JSON.stringify(o)}\n`)
        .join(""),
    );
    if (opts.usage === true) process.stderr.write(usageTable(router.usage()));
    if (timeline && opts.timelineFile !== undefined) {
      try {
        await writeFile(path.resolve(opts.timelineFile), timelineSvg(timeline.calls, "toolcall exec"));
      } catch (err) {
        say(`--timeline: cannot write ${opts.timelineFile}: ${errorMessage(err)}`);
        if (exitCode === EXIT_OK) exitCode = EXIT_FATAL;
      }
    }
    return exitCode;
  } finally {
    // Still ours while closing: a signal now must not kill us before the children are gone.
    await session.close();
    await journal?.close();
    stopHandlingSignals();
    if (events !== undefined) {
      const fd = events;
      // A handler that settles later must not write to a closed (or reused) descriptor.
      events = undefined;
      closeSync(fd);
    }
  }

  function handleLine(line: string, n: number): void {
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (err) {
      say(`line ${n}: not JSON: ${errorMessage(err)}`);
      return;
    }
    const format = opts.format ?? detectFormat(item);
    let items: Array<ResponseItem | UnknownItem>;
    try {
      items = itemsOf(item, format);
    } catch (err) {
      // A line taken for Chat or Anthropic by its look says so: it may have been meant otherwise.
      const guessed = opts.format === undefined && format !== "responses" ? ` (read as ${format})` : "";
      say(`line ${n}: ${errorMessage(err)}${guessed}`);
      return;
    }
    if (items.length === 0) logger.debug({ line: n, format }, "no tool calls; ignored");
    for (const one of items) submit(one, n, format);
  }

  function submit(item: ResponseItem | UnknownItem, n: number, format: WireFormat): void {
    // On the timeline before it starts: a call may begin within `submit`.
    const recorded = timeline && recordCall(timeline, item);
    const { accepted, callId, reason } = runtime.submit(item);
    if (recorded !== undefined && !accepted) timeline?.remove(recorded);
    if (accepted && callId !== undefined) {
      acceptedCallIds.push(callId);
      formatOf.set(callId, format);
      if (reason !== undefined) say(`line ${n}: ${reason} (call ${callId} answered with this error)`);
    } else if (reason !== undefined) {
      say(`line ${n}: rejected, no output: ${reason}`);
    } else {
      logger.debug({ line: n, type: item.type }, "not a tool call; ignored");
    }
  }

  /** A call about to be submitted, on the timeline (shared or exclusive as the runtime will judge it); its id. */
  function recordCall(to: CallTimeline, item: ResponseItem | UnknownItem): string | undefined {
    const built = router.tryBuildToolCall(item);
    if (built === null || built.callId === undefined) return undefined;
    const exclusive = built instanceof ToolCallFailure || !router.callSupportsParallel(built);
    return to.add(built.callId, `${built.callId} ${built.toolName}`, { exclusive }) ? built.callId : undefined;
  }

  /** The other calls' outputs with the fatal call's own placed where it was submitted. */
  function withFatalOutput(err: FatalToolCallError): OutputLike[] {
    const byId = new Map([...err.outputs, err.item].map((o) => [outputCallId(o), o]));
    return acceptedCallIds.flatMap((callId) => byId.get(callId) ?? []);
  }
}
