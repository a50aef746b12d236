import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ToolEvent,
  type ToolHandler,
} from "../../src/index.js";

/** Echoes the arguments it got: what the handler saw is what the model reads. */
const echo: ToolHandler = {
  kind: "function",
  handle: async (inv) => Promise.resolve({ kind: "function", body: JSON.stringify(inv.args) }),
};

function router(repair?: boolean): { router: ToolRouter; ran: string[] } {
  const ran: string[] = [];
  const recording: ToolHandler = {
    kind: "function",
    handle: async (inv) => {
      ran.push(inv.toolName);
      return echo.handle(inv);
    },
  };
  const { specs, registry } = new ToolRegistryBuilder()
    .pushSpec({
      type: "function",
      name: "read_file",
      description: "read",
      parameters: {
        type: "object",
        properties: { file_path: { type: "string" }, offset: { type: "integer" } },
        required: ["file_path"],
        additionalProperties: false,
      },
    })
    .registerHandler("read_file", recording)
    .pushSpec({
      type: "function",
      name: "write_file",
      description: "write",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
    })
    .registerHandler("write_file", recording)
    .build();
  return { router: new ToolRouter(registry, specs, undefined, repair === undefined ? {} : { repair }), ran };
}

const call = (callId: string, name: string, args: string) => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: args,
});
const output = (item: { output?: unknown } | undefined): unknown => item?.output;

async function run(r: ToolRouter, items: object[], logger = pino({ level: "silent" })) {
  const events: ToolEvent[] = [];
  const runtime = new ToolCallRuntime(r, createTurnContext({ onEvent: (e) => events.push(e), logger }));
  for (const item of items) runtime.submit(item as never);
  const outputs = await runtime.drain();
  return { outputs: outputs.map(output), events };
}

describe("repair through the runtime (DESIGN section 18)", () => {
  it("runs a repaired call with the repaired arguments, reports it in an event, a debug log and the output's first line", async () => {
    const { router: r, ran } = router();
    const lines: string[] = [];
    const logger = pino(
      { level: "debug" },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const { outputs, events } = await run(
      r,
      [call("c1", "read_file", "{'file_path': 'a.txt', 'offset': '2',}")],
      logger,
    );
    expect(ran).toEqual(["read_file"]);
    expect(outputs).toEqual([
      'note: arguments were repaired: removed a trailing comma; read single-quoted strings as JSON strings; read "2" as 2 for /offset\n{"file_path":"a.txt","offset":2}',
    ]);
    const repaired = events.filter((e) => e.type === "tool_call_repaired");
    expect(repaired).toEqual([
      {
        type: "tool_call_repaired",
        callId: "c1",
        toolName: "read_file",
        repairs: [
          { kind: "trailing_comma", what: "removed a trailing comma" },
          { kind: "single_quotes", what: "read single-quoted strings as JSON strings" },
          { kind: "coerced", what: 'read "2" as 2 for /offset' },
        ],
      },
    ]);
    const logged = lines
      .map((l) => JSON.parse(l) as { msg: string; callId?: string })
      .filter((l) => l.msg === "tool call arguments repaired");
    expect(logged).toMatchObject([{ callId: "c1" }]);
  });

  it("a well-formed call gets no note and no event", async () => {
    const { outputs, events } = await run(router().router, [call("c1", "read_file", '{"file_path":"a.txt"}')]);
    expect(outputs).toEqual(['{"file_path":"a.txt"}']);
    expect(events.some((e) => e.type === "tool_call_repaired")).toBe(false);
  });

  it("with repair off, the same call is refused with the parser's message and never runs", async () => {
    const { router: r, ran } = router(false);
    const { outputs, events } = await run(r, [call("c1", "read_file", "{'file_path': 'a.txt'}")]);
    expect(ran).toEqual([]);
    expect(String(outputs[0])).toMatch(/^failed to parse function arguments: /);
    expect(events.some((e) => e.type === "tool_call_repaired")).toBe(false);
  });

  it("a repaired call still invalid is refused, the note first, the problems after", async () => {
    const { router: r, ran } = router();
    const { outputs } = await run(r, [call("c1", "write_file", '{"path": "a.txt",}')]);
    expect(ran).toEqual([]);
    expect(outputs).toEqual([
      "note: arguments were repaired: removed a trailing comma\ninvalid arguments for write_file: / must have required property 'content'",
    ]);
  });

  it("an unknown tool that folds to one offered tool is answered with the suggestion and never run", async () => {
    const { router: r, ran } = router();
    const { outputs } = await run(r, [
      call("c1", "Read-File", '{"file_path":"a.txt"}'),
      call("c2", "READ FILE", '{"file_path":"a.txt"}'),
      call("c3", "readfile", '{"file_path":"a.txt"}'),
      call("c4", "read_files", '{"file_path":"a.txt"}'),
      { type: "custom_tool_call", call_id: "c5", name: "Write-File", input: "x" },
    ]);
    expect(ran).toEqual([]);
    expect(outputs).toEqual([
      "unsupported call: Read-File. Did you mean read_file?",
      "unsupported call: READ FILE. Did you mean read_file?",
      "unsupported call: readfile. Did you mean read_file?",
      "unsupported call: read_files",
      "unsupported custom tool call: Write-File. Did you mean write_file?",
    ]);
  });

  it("an unknown property one edit away from an allowed one is named, not renamed", async () => {
    const { router: r, ran } = router();
    const { outputs } = await run(r, [call("c1", "read_file", '{"file_path": "a.txt", "ofset": 2}')]);
    expect(ran).toEqual([]);
    expect(outputs).toEqual([
      "invalid arguments for read_file: /ofset is not an allowed property (did you mean offset?)",
    ]);
  });
});

describe("repair with the built-in read_file on a real file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "toolcall-repair-"));
    await writeFile(path.join(dir, "a.txt"), "alpha\nbeta\ngamma\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the six shapes of the issue each read the file", async () => {
    const r = await createToolRouter({ shell: false, readFile: true });
    const file = path.join(dir, "a.txt");
    const args = JSON.stringify({ file_path: file, offset: 2 });
    try {
      const { outputs } = await run(r, [
        call("double", "read_file", JSON.stringify(args)),
        call("fence", "read_file", `\`\`\`json\n${args}\n\`\`\``),
        call("comma", "read_file", `${args.slice(0, -1)},}`),
        call("quotes", "read_file", `{file_path: '${file}', offset: 2} // line two`),
        call("number", "read_file", JSON.stringify({ file_path: file, offset: "2" })),
        call("bare", "read_file", file),
      ]);
      const notes = outputs.map((o) => String(o).split("\n")[0]);
      expect(notes).toEqual([
        "note: arguments were repaired: decoded the arguments, sent as a JSON string holding the object, once",
        "note: arguments were repaired: removed the Markdown code fence around the arguments",
        "note: arguments were repaired: removed a trailing comma",
        "note: arguments were repaired: removed comments; read single-quoted strings as JSON strings; quoted unquoted keys",
        'note: arguments were repaired: read "2" as 2 for /offset',
        'note: arguments were repaired: took the bare string as "file_path"',
      ]);
      expect(outputs.slice(0, 5).map((o) => String(o).split("\n").slice(1).join("\n"))).toEqual(
        Array(5).fill("L2: beta\nL3: gamma"),
      );
      expect(String(outputs[5]).split("\n").slice(1).join("\n")).toBe("L1: alpha\nL2: beta\nL3: gamma");
    } finally {
      await r.close();
    }
  });
});
