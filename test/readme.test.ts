import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { transform } from "esbuild";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const onPath = (name: string): boolean =>
  (process.env["PATH"] ?? "").split(":").some((dir) => dir !== "" && existsSync(join(dir, name)));
const hasBwrap = onPath("bwrap");

/** The README and the pages of docs/ it links to: every example in them is run here. */
async function docs(): Promise<string> {
  const pages = (await readdir(join(root, "docs"))).filter((f) => f.endsWith(".md")).sort();
  const texts = await Promise.all(
    ["README.md", ...pages.map((f) => join("docs", f))].map((f) => readFile(join(root, f), "utf8")),
  );
  return texts.join("\n");
}

/** The runnable examples: ```ts blocks whose first line is `// example: NAME` (each name once). */
async function readmeExamples(): Promise<Map<string, string>> {
  const examples = new Map<string, string>();
  for (const m of (await docs()).matchAll(/```ts\n\/\/ example: (\S+)\n([\s\S]*?)```/g)) {
    if (examples.has(m[1]!)) throw new Error(`two examples named ${m[1]!}`);
    examples.set(m[1]!, m[2]!);
  }
  return examples;
}

/** The ```python block whose first line is `# example: NAME`. */
async function pythonExample(name: string): Promise<string> {
  const readme = await docs();
  const found = [...readme.matchAll(/```python\n# example: (\S+)\n([\s\S]*?)```/g)].find((m) => m[1] === name);
  if (!found) throw new Error(`no python example ${name}`);
  return found[2]!;
}

const exported = (
  JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { exports: Record<string, { import?: string }> }
).exports;

/** The built file `toolcall-runtime` or `toolcall-runtime/SUB` resolves to (package.json `exports`), as for a user. */
function builtOf(sub: string | undefined): string {
  const built = exported[`.${sub ?? ""}`]?.import;
  if (built === undefined) throw new Error(`toolcall-runtime${sub ?? ""} is not in package.json exports`);
  return join(root, built);
}

async function runExample(code: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "readme-example-"));
  try {
    const file = join(dir, "example.mjs");
    const src = code
      .replaceAll(/from "toolcall-runtime(\/[\w-]+)?"/g, (_, sub?: string) => `from ${JSON.stringify(builtOf(sub))}`)
      // The example lives in a temp dir: the frameworks resolve from this checkout (their ESM builds).
      .replaceAll('from "ai"', `from ${JSON.stringify(join(root, "node_modules/ai/dist/index.mjs"))}`)
      .replaceAll('from "ai/test"', `from ${JSON.stringify(join(root, "node_modules/ai/dist/test/index.mjs"))}`)
      .replaceAll('from "zod"', `from ${JSON.stringify(join(root, "node_modules/zod/index.js"))}`);
    // Types stripped once here, then plain node: a TypeScript loader in each example's process
    // cost three times the example itself.
    await writeFile(file, (await transform(src, { loader: "ts", format: "esm", target: "node20" })).code);
    const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: root });
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("README examples", () => {
  it("every runnable example is covered here", async () => {
    expect([...(await readmeExamples()).keys()].sort()).toEqual([
      "ai_sdk",
      "anthropic",
      "apply_patch",
      "chat",
      "durable",
      "dynamic",
      "embed",
      "forgiving",
      "groups",
      "hooks",
      "mcp_capabilities",
      "middleware",
      "permissions",
      "responses_native",
      "sandbox",
      "shell",
      "user_input",
      "zod",
    ]);
  });

  it("the zod example types a plugin tool's args from its schema; the model gets JSON Schema's check", async () => {
    const out = await runExample((await readmeExamples()).get("zod")!);
    expect(out).toBe(
      "hello Ada, hello Ada\ninvalid arguments for greet: /name must NOT have fewer than 1 characters\n",
    );
  });

  it("the AI SDK example runs a generateText loop through the adapter", async () => {
    const out = await runExample((await readmeExamples()).get("ai_sdk")!);
    expect(out).toBe("c1: sunny in Oslo\nc2: sunny in Rome\n");
  });

  it("the MCP capabilities example answers server-everything's elicitation, defaults filled in", async () => {
    const out = await runExample((await readmeExamples()).get("mcp_capabilities")!);
    expect(out).toContain("- Name: Ada");
    expect(out).toContain("- Favorite Integer: 42");
  });

  it("the durable example answers the first call from the journal and runs the second once", async () => {
    const out = await runExample((await readmeExamples()).get("durable")!);
    const [one, two] = out.trim().split("\n---\n");
    expect(one).toMatch(/^Exit code: 0\n[\s\S]*Output:\none\n?$/);
    expect(two).toMatch(/^Exit code: 0\n[\s\S]*Output:\ntwo\n?$/);
  });

  it("the chat example answers each tool call with a tool message and offers apply_patch as a function", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("chat")!)) as unknown;
    expect(out).toEqual({
      patchTool: "function",
      replies: [
        {
          role: "tool",
          tool_call_id: "call_1",
          content: expect.stringMatching(/^Exit code: 0\n[\s\S]*Output:\nhi\n$/),
        },
        { role: "tool", tool_call_id: "call_2", content: "unsupported call: no_such_tool" },
      ],
    });
  });

  it("the anthropic example answers each tool_use with a tool_result, the failed one is_error", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("anthropic")!)) as unknown;
    expect(out).toEqual({
      tools: true,
      next: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: expect.stringMatching(/^Exit code: 0\n[\s\S]*Output:\nhi\n$/),
            is_error: false,
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: expect.stringMatching(/^Exit code: 1\n/),
            is_error: true,
          },
        ],
      },
    });
  });

  it("the responses_native example offers the native tools and answers shell_call and apply_patch_call", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("responses_native")!)) as unknown;
    expect(out).toEqual({
      native: [{ type: "shell" }, { type: "apply_patch" }],
      outputs: [
        {
          type: "shell_call_output",
          call_id: "s1",
          output: [
            { stdout: "one\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
            { stdout: "", stderr: "two\n", outcome: { type: "exit", exit_code: 3 } },
          ],
          max_output_length: 1000,
        },
        {
          type: "apply_patch_call_output",
          call_id: "p1",
          status: "completed",
          output: "Success. Updated the following files:\nA hello.txt\n",
        },
      ],
    });
  });

  it("the shell example runs a command and a local_shell_call", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("shell")!)) as Array<Record<string, string>>;
    expect(out).toEqual([
      {
        type: "function_call_output",
        call_id: "c1",
        output: expect.stringMatching(/^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nhello\n$/),
      },
      {
        type: "local_shell_call_output",
        id: "c2",
        output: expect.stringMatching(/^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nlocal\n$/),
      },
    ]);
  });

  it("the apply_patch example patches, then the later read sees the new file", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("apply_patch")!)) as Array<
      Record<string, string>
    >;
    expect(out).toEqual([
      {
        type: "custom_tool_call_output",
        call_id: "c1",
        output: expect.stringMatching(
          /^Exit code: 0\nWall time: \d+(\.\d)? seconds\nOutput:\nSuccess\. Updated the following files:\nA hello\.txt\n$/,
        ),
      },
      { type: "function_call_output", call_id: "c2", output: "L1: Hello, world!" },
    ]);
  });

  // CI installs bubblewrap (.ci/run): there the sandboxed path must run, not skip.
  it.skipIf(!hasBwrap && process.env["CI"] !== "true")(
    "the sandbox example writes inside the workspace, is refused outside, and hides the key",
    async () => {
      const lines = (await runExample((await readmeExamples()).get("sandbox")!)).trim().split("\n");
      const out = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(" ")), JSON.parse(l.slice(l.indexOf(" ") + 1)) as string]),
      );
      expect(out["inside"]).toMatch(/^Exit code: 0\n[\s\S]*Output:\nhi\n$/);
      expect(out["outside"]).toMatch(/^Exit code: [1-9][\s\S]*toolcall-example\.txt: Read-only file system\n$/);
      expect(out["env"]).toMatch(/^Exit code: 0\n[\s\S]*Output:\nkey=hidden ci=1\n$/);
      expect(existsSync(join(homedir(), "toolcall-example.txt"))).toBe(false);
    },
  );

  it("the groups example hides a group's tools until reset_tools activates it", async () => {
    const out = await runExample((await readmeExamples()).get("groups")!);
    expect(out.split("\n")).toEqual([
      "apply_patch read_file view_image update_plan reset_tools",
      "tool list_dir is not active; activate its group with reset_tools",
      "Active tool groups: explore.",
      "",
      "## explore",
      "List before you grep; grep before you read whole files.",
      "apply_patch read_file list_dir grep_files view_image update_plan reset_tools",
      "",
    ]);
  });

  it("the forgiving example prints what docs/forgiving.md says it prints", async () => {
    const page = await readFile(join(root, "docs/forgiving.md"), "utf8");
    const printed = /prints\n\n```text\n([\s\S]*?)```/.exec(page)?.[1];
    expect(printed).toBeDefined();
    expect(await runExample((await readmeExamples()).get("forgiving")!)).toBe(printed);
  });

  it("the dynamic tool example is answered from onEvent", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("dynamic")!)) as unknown;
    expect(out).toEqual([
      { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "ticket T-1: open" }] },
    ]);
  });

  it("the user_input example answers request_user_input from onEvent with Codex's JSON", async () => {
    const out = JSON.parse(await runExample((await readmeExamples()).get("user_input")!)) as unknown;
    expect(out).toEqual([
      {
        type: "function_call_output",
        call_id: "c1",
        output: '{"answers":{"db":{"answers":["Postgres (Recommended)"]}}}',
      },
    ]);
  });

  it("the permissions example runs a safe call, denies by rule, and asks for the mutating ones", async () => {
    const out = await runExample((await readmeExamples()).get("permissions")!);
    expect(out.split("\n")).toEqual([
      "asked: touch a.txt (allow_session would remember shell(touch:*))",
      "asked: git commit -am wip (allow_session would remember shell(git commit:*))",
      "c1: Exit code: 0",
      'c2: denied by policy: rule "shell(rm:*)" forbids this call',
      "c3: Exit code: 0",
      "c4: rejected by user: not now",
      "",
    ]);
  });

  it("the hooks example blocks the rm call with the hook's reason and runs the other", async () => {
    const out = await runExample((await readmeExamples()).get("hooks")!);
    expect(out.split("\n")).toEqual([
      "Command blocked by PreToolUse hook: rm is not allowed in this repo. Command: rm -rf build",
      "Exit code: 0",
      "",
    ]);
  });

  it("the middleware example redacts the key in the tool's output", async () => {
    const out = await runExample((await readmeExamples()).get("middleware")!);
    expect(out).toBe("OPENAI_API_KEY=[redacted]\nDEBUG=1\n");
  });

  // CI installs python3 (.ci/run): there the example must run, not skip.
  it.skipIf(!onPath("python3") && process.env["CI"] !== "true")(
    "the Python sidecar client runs two turns, answers an approval and cancels a call",
    async () => {
      // `npx --no-install toolcall` is this checkout's built command.
      const cli = [process.execPath, join(root, "dist/bin/toolcall.js")];
      const code = (await pythonExample("sidecar")).replace(
        '["npx", "--no-install", "toolcall",',
        `${JSON.stringify(cli).slice(0, -1)},`,
      );
      expect(code).toContain(join(root, "dist/bin/toolcall.js"));
      const dir = await mkdtemp(join(tmpdir(), "readme-sidecar-"));
      try {
        await writeFile(join(dir, "client.py"), code);
        const { stdout } = await promisify(execFile)("python3", ["client.py"], { cwd: dir });
        expect(stdout.split("\n")).toEqual([
          "approve? touch notes.txt",
          "output for c1",
          "output for c2",
          "['Exit code: 0', 'Exit code: 0']",
          "output for c3",
          "{'cancelled': True}",
          "aborted by user",
          "exit 0",
          "",
        ]);
        expect(existsSync(join(dir, "notes.txt"))).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it("the embedding example runs and prints what its comments say", async () => {
    const code = (await readmeExamples()).get("embed");
    expect(code).toBeDefined();
    const out = await runExample(code!);
    expect(out).toContain('"output": "It is sunny in Oslo."');
    expect(out).toContain(
      "invalid arguments for get_weather: / must have required property 'city'; /town is not an allowed property",
    );
  });
});

describe("the README leads", () => {
  it("stays under 300 lines, and every relative link in it and in docs/ reaches a file", async () => {
    const readme = await readFile(join(root, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThan(300);
    const pages = [
      "README.md",
      ...(await readdir(join(root, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const page of pages) {
      const text = (await readFile(join(root, page), "utf8")).replace(/```[\s\S]*?```/g, "");
      for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(root, page, "..", target))) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
