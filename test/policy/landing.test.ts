/**
 * Path rules are judged where a call's paths really land when it is decided, and again on what
 * the file tool actually opens or writes (DESIGN section 11): a link flipped between the decision
 * and the open (by a command the model left running) must not lead the call past a deny rule.
 * The flip is placed exactly in that gap by a middleware (it runs after the policy stage, before
 * the handler), or by the approver (asked after the real paths were resolved); the same calls
 * without the rule reach the secret, so the flips are real. Full access and the sandbox's helper.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import {
  createTurnContext,
  PermissionEngine,
  ToolCallRuntime,
  ToolRegistryBuilder,
  ToolRouter,
  type ExecEnvironment,
  type PermissionPolicy,
  type ToolMiddleware,
} from "../../src/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import {
  APPLY_PATCH_FUNCTION_SPEC,
  ApplyPatchHandler,
  FileReadLedger,
  READ_FILE_SPEC,
  ReadFileHandler,
  WRITE_FILE_SPEC,
  WriteFileHandler,
} from "../../src/subpaths/handlers.js";
import { describeSandbox } from "../sandbox/helpers.js";
import { fc, text } from "../support/harness.js";

const DENY = ["read_file(secret/**)", "write_file(secret/**)", "apply_patch(secret/**)"];

let root: string;
let ws: string;
let n = 0;
beforeAll(async () => {
  // A real path: the sandbox's helper names files as the kernel does.
  root = await mkdtemp(path.join(os.tmpdir(), "landing-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  ws = path.join(root, `ws${n++}`);
  await mkdir(path.join(ws, "secret"), { recursive: true });
  await mkdir(path.join(ws, "inside"));
  await mkdir(path.join(ws, "elsewhere"));
  await writeFile(path.join(ws, "secret", "s.txt"), "S\n");
  await writeFile(path.join(ws, "open.txt"), "O\n");
  await writeFile(path.join(ws, "other.txt"), "T\n");
  await symlink("open.txt", path.join(ws, "flip.txt"));
  await symlink("inside", path.join(ws, "d"));
});

/** Points the link `name` of the workspace at `target`. */
async function repoint(name: string, target: string): Promise<void> {
  await rm(path.join(ws, name));
  await symlink(target, path.join(ws, name));
}

/** A middleware that re-points `name` at `target` once the call was decided, before its handler opens anything. */
const flipping =
  (name: string, target: string): ToolMiddleware =>
  async (_inv, next) => {
    await repoint(name, target);
    return next();
  };

/** One call through the policy stage on a router of the file tools, `use` around their handlers. */
async function call(
  policy: PermissionPolicy,
  use: ToolMiddleware | undefined,
  name: string,
  args: Record<string, unknown>,
  environment?: ExecEnvironment,
): Promise<string> {
  const fileReads = new FileReadLedger();
  let builder = new ToolRegistryBuilder()
    .pushSpec(READ_FILE_SPEC, { parallel: true })
    .registerHandler("read_file", new ReadFileHandler(fileReads))
    .pushSpec(WRITE_FILE_SPEC)
    .registerHandler("write_file", new WriteFileHandler(fileReads))
    .pushSpec(APPLY_PATCH_FUNCTION_SPEC)
    .registerHandler("apply_patch", new ApplyPatchHandler(fileReads));
  if (use) builder = builder.use(use);
  const { specs, registry } = builder.build();
  const turn = createTurnContext({
    cwd: ws,
    permissions: new PermissionEngine(policy),
    ...(environment && { environment }),
  });
  const runtime = new ToolCallRuntime(new ToolRouter(registry, specs), turn);
  runtime.submit(fc("c1", name, JSON.stringify(args)));
  const [out] = (await runtime.drain()).map(text);
  return out ?? "";
}

const secretUntouched = async (): Promise<void> => {
  expect(await readFile(path.join(ws, "secret", "s.txt"), "utf8")).toBe("S\n");
  expect((await readdir(path.join(ws, "secret"))).sort()).toEqual(["s.txt"]);
};

const bypass = (deny: string[] = DENY): PermissionPolicy => ({ mode: "bypass", deny });
const patchAdding = (file: string) => ({ input: `*** Begin Patch\n*** Add File: ${file}\n+PWN\n*** End Patch` });

function landingCases(environment: () => ExecEnvironment | undefined): void {
  it("read_file: a link flipped to the secret after the decision is denied by the rule", async () => {
    const args = { file_path: path.join(ws, "flip.txt") };
    const out = await call(bypass(), flipping("flip.txt", "secret/s.txt"), "read_file", args, environment());
    expect(out).toBe('denied by policy: rule "read_file(secret/**)" forbids this call');
    // The same flip without the rule reads the secret: the flip lands in the gap.
    await repoint("flip.txt", "open.txt");
    const control = await call(bypass([]), flipping("flip.txt", "secret/s.txt"), "read_file", args, environment());
    expect(control).toBe("L1: S");
  });

  it("read_file: a link flipped to a place the rules allow too is read there", async () => {
    const args = { file_path: path.join(ws, "flip.txt") };
    expect(await call(bypass(), flipping("flip.txt", "other.txt"), "read_file", args, environment())).toBe("L1: T");
  });

  it("write_file: a directory link flipped to the secret after the decision writes nothing there", async () => {
    const args = { file_path: path.join(ws, "d", "new.txt"), content: "PWN\n" };
    const out = await call(bypass(), flipping("d", "secret"), "write_file", args, environment());
    expect(out).toBe('denied by policy: rule "write_file(secret/**)" forbids this call');
    await secretUntouched();
    expect(await readdir(path.join(ws, "inside"))).toEqual([]);
    await repoint("d", "inside");
    expect(await call(bypass([]), flipping("d", "secret"), "write_file", args, environment())).toMatch(/new\.txt/);
    expect(await readFile(path.join(ws, "secret", "new.txt"), "utf8")).toBe("PWN\n");
  });

  it("write_file: flipped to a place the rules allow too, it is written there", async () => {
    const args = { file_path: path.join(ws, "d", "new.txt"), content: "FINE\n" };
    expect(await call(bypass(), flipping("d", "elsewhere"), "write_file", args, environment())).not.toMatch(/denied/);
    expect(await readFile(path.join(ws, "elsewhere", "new.txt"), "utf8")).toBe("FINE\n");
  });

  it("apply_patch: an added file whose directory link is flipped to the secret is refused whole", async () => {
    const out = await call(bypass(), flipping("d", "secret"), "apply_patch", patchAdding("d/p.txt"), environment());
    expect(out).toMatch(/denied by policy: rule "apply_patch\(secret\/\*\*\)" forbids this call/);
    expect(out).toMatch(/no files were changed/);
    await secretUntouched();
    await repoint("d", "inside");
    expect(
      await call(bypass([]), flipping("d", "secret"), "apply_patch", patchAdding("d/p.txt"), environment()),
    ).toMatch(/Success\. Updated the following files:\nA d\/p\.txt/);
    expect(await readFile(path.join(ws, "secret", "p.txt"), "utf8")).toBe("PWN\n");
  });
}

landingCases(() => undefined);

it("a flip during a person's approval is refused as changed: the person was asked about another file", async () => {
  const args = { file_path: path.join(ws, "flip.txt") };
  let asked = 0;
  const policy: PermissionPolicy = {
    mode: "default",
    ask: ["read_file(flip.txt)"],
    deny: DENY,
    approve: async () => {
      asked++;
      await repoint("flip.txt", "other.txt");
      return { decision: "allow" };
    },
  };
  const out = await call(policy, undefined, "read_file", args);
  expect(asked).toBe(1);
  expect(out).toBe(
    `denied by policy: ${path.join(ws, "flip.txt")} now leads to ${path.join(ws, "other.txt")}, which was not judged when the call was allowed (a link changed meanwhile)`,
  );
});

describeSandbox("in the sandbox's helper (workspace-write)", () => {
  let env: ExecEnvironment | undefined;
  beforeAll(async () => {
    env = await createExecEnvironment({ cwd: root, sandbox: { mode: "workspace-write" } });
  });
  afterAll(async () => {
    await env?.close?.();
  });
  landingCases(() => env);
});
