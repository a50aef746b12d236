/**
 * The resident helper (DESIGN section 12, "The boundary is the kernel's"): under bubblewrap the
 * file tools read and write inside the sandbox, so the kernel resolves every path. Real
 * bubblewrap, real files, real races (security review 2026-11-26: S17, S14, S10).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeEach, expect, it } from "vitest";
import { createToolRouter, type ExecEnvironment, type SandboxMode, type ToolRouter } from "../../src/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { ROOT } from "../cli/helpers.js";
import { callRouter } from "../handlers/toolHarness.js";
import { describeSandbox, Scratch } from "./helpers.js";

const scratch = new Scratch();
let work: string;
let outside: string;
const environments: ExecEnvironment[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  // Outside os.tmpdir() (itself a writable root): the workspace is the only root here.
  const base = await scratch.outside("helper");
  work = path.join(base, "work");
  outside = path.join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await Promise.all(environments.splice(0).map((env) => env.close?.() ?? Promise.resolve()));
});
afterAll(() => scratch.cleanup());

async function environment(mode: SandboxMode = "workspace-write"): Promise<ExecEnvironment> {
  const env = await createExecEnvironment({ cwd: work, sandbox: { mode } });
  environments.push(env);
  return env;
}

/** A session's router with every file tool on, its calls in turns on `env`. */
async function session(env: ExecEnvironment): Promise<(name: string, args: unknown) => ReturnType<typeof callRouter>> {
  const router: ToolRouter = await createToolRouter({
    shell: false,
    writeFile: true,
    editFile: true,
    applyPatch: "function",
  });
  return (name, args) => callRouter(router, name, args, { cwd: work, environment: env });
}

/** SIGKILL, unless the process is already gone. */
function killUnlessGone(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

const addFile = (p: string, line = "x"): string => `*** Begin Patch\n*** Add File: ${p}\n+${line}\n*** End Patch`;

/** Every descendant of `root` whose command line holds `needle`, deepest last. */
async function descendantsWith(root: number, needle: string): Promise<number[]> {
  const parents = new Map<number, number>();
  const cmdlines = new Map<number, string>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    cmdlines.set(Number(entry), await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => ""));
  }
  const found: number[] = [];
  for (let level = [root]; level.length > 0;) {
    level = [...parents].filter(([, ppid]) => level.includes(ppid)).map(([pid]) => pid);
    found.push(...level.filter((pid) => cmdlines.get(pid)?.includes(needle)));
  }
  return found;
}

/** Every live process whose command line holds `needle`. */
async function processesHolding(needle: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(needle)) found.push(Number(entry));
  }
  return found;
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describeSandbox("the resident helper", () => {
  it("S17: a process flipping a symlink in and out of the roots lands none of 300 writes outside", async () => {
    const env = await environment();
    const call = await session(env);
    await mkdir(path.join(work, "inside"));
    // The race driver: `d` alternates between a directory inside and one outside the roots,
    // each flip an atomic rename, for at most 120 s or until told to stop.
    const driver = spawn(
      "python3",
      [
        "-c",
        [
          "import os, sys, time",
          "outside, stop = sys.argv[1], sys.argv[2]",
          "flips, end = 0, time.time() + 120",
          "while time.time() < end and not os.path.exists(stop):",
          "    for target in ('inside', outside):",
          "        os.symlink(target, 't'); os.rename('t', 'd'); flips += 1",
          "print(flips, flush=True)",
        ].join("\n"),
        outside,
        path.join(work, "stop"),
      ],
      { cwd: work, stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(driver);
    let flips = "";
    driver.stdout.setEncoding("utf8").on("data", (c: string) => (flips += c));
    const ended = new Promise((r) => driver.once("exit", r));
    await until(async () => existsSync(path.join(work, "d")), "the race driver to make its link");

    const answers: Array<{ success: boolean; text: string }> = [];
    for (let i = 0; i < 300; i++) {
      answers.push(
        i % 2 === 0
          ? await call("apply_patch", { input: addFile(`d/f${i}.txt`) })
          : await call("write_file", { file_path: path.join(work, "d", `f${i}.txt`), content: "x\n" }),
      );
    }
    await writeFile(path.join(work, "stop"), "");
    await ended;

    expect(await readdir(outside)).toEqual([]);
    // The race ran: the link flipped all along, and the writes that found it inside landed there.
    expect(Number(flips)).toBeGreaterThan(300);
    const landed = await readdir(path.join(work, "inside"));
    expect(landed.filter((f) => f.endsWith(".txt")).length).toBe(answers.filter((a) => a.success).length);
    expect(landed.filter((f) => !/^f\d+\.txt$/.test(f))).toEqual([]); // no temp file left behind
  }, 240_000);

  it("S10: a write through a symlink out of the roots lands nowhere outside (the kernel refuses it)", async () => {
    const env = await environment();
    const files = env.files!;
    await writeFile(path.join(outside, "secret.txt"), "S\n");
    await symlink(outside, path.join(work, "alias"));
    await symlink(path.join(outside, "secret.txt"), path.join(work, "s-link.txt"));
    await symlink(path.join(outside, "new.txt"), path.join(work, "dangling.txt"));
    // The facet itself, without the host's early check: only the sandbox stands in the way.
    await expect(files.write(path.join(work, "alias", "x6.txt"), "PWN")).rejects.toMatchObject({ code: "EROFS" });
    await expect(files.write(path.join(work, "s-link.txt"), "PWN")).rejects.toMatchObject({ code: "EROFS" });
    await expect(files.write(path.join(work, "dangling.txt"), "PWN")).rejects.toMatchObject({ code: "EROFS" });
    await expect(files.mkdir(path.join(work, "alias", "sub"), { recursive: true })).rejects.toThrow();
    await writeFile(path.join(work, "mine.txt"), "mine\n");
    await expect(files.rename(path.join(work, "mine.txt"), path.join(work, "alias", "moved.txt"))).rejects.toThrow();
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("S\n");
    // Inside the roots the same facet writes, binary contents intact.
    await files.write(path.join(work, "bin.dat"), Buffer.from([0, 255, 10, 13, 0]));
    expect([...(await readFile(path.join(work, "bin.dat")))]).toEqual([0, 255, 10, 13, 0]);
    expect([...(await files.read(path.join(work, "bin.dat"))).data]).toEqual([0, 255, 10, 13, 0]);
  });

  it("answers many calls in flight over one helper, each its own (request ids)", async () => {
    const env = await environment();
    const names = Array.from({ length: 60 }, (_, i) => `n${i}.txt`);
    await Promise.all(names.map((n) => writeFile(path.join(work, n), `${n}\n`.repeat(1 + (n.length % 7)))));
    const got = await Promise.all(names.map((n) => env.files!.read(path.join(work, n))));
    expect(got.map((r) => r.data.toString("utf8"))).toEqual(names.map((n) => `${n}\n`.repeat(1 + (n.length % 7))));
    // Only one helper (one node process, whatever bubblewrap adds around it) served them.
    const helpers = await descendantsWith(process.pid, "sandbox-helper.js");
    const nodes = await Promise.all(helpers.map((pid) => readFile(`/proc/${pid}/cmdline`, "utf8")));
    expect(nodes.filter((cmdline) => !cmdline.includes("bwrap"))).toHaveLength(1);
  });

  it("with readableRoots the helper sees only them: what lies outside does not exist for the file tools", async () => {
    const readable = path.join(outside, "docs");
    await mkdir(readable);
    await writeFile(path.join(readable, "r.txt"), "readable\n");
    await writeFile(path.join(outside, "hidden.txt"), "hidden\n");
    const env = await createExecEnvironment({
      cwd: work,
      sandbox: { mode: "workspace-write", readableRoots: [readable] },
    });
    environments.push(env);
    const call = await session(env);
    expect(await call("read_file", { file_path: path.join(readable, "r.txt") })).toMatchObject({
      success: true,
      text: "L1: readable",
    });
    expect(await call("write_file", { file_path: path.join(work, "w.txt"), content: "w\n" })).toMatchObject({
      success: true,
    });
    expect(await readFile(path.join(work, "w.txt"), "utf8")).toBe("w\n");
    // The facet itself, without the host's check: the file is not in the sandbox's view at all.
    await expect(env.files!.read(path.join(outside, "hidden.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a killed helper fails the call in flight with one clear sentence, and the next call works", async () => {
    const env = await environment();
    const call = await session(env);
    await writeFile(path.join(work, "ok.txt"), "fine\n");
    expect(await call("read_file", { file_path: path.join(work, "ok.txt") })).toMatchObject({ success: true });
    // bubblewrap, its init and node inside: all killed before the request is even written,
    // so none of them can answer it.
    const helper = await descendantsWith(process.pid, "sandbox-helper");
    expect(helper.length).toBeGreaterThanOrEqual(2);
    const inFlight = env.files!.stat(work);
    // One may be gone already: bubblewrap ends with its command, and once reaped no zombie keeps
    // its pid.
    for (const pid of helper.reverse()) killUnlessGone(pid);
    await expect(inFlight).rejects.toThrow(
      /^the sandbox's file helper stopped \([^)]+\) during the call; the next call starts a new one$/,
    );
    expect(await call("read_file", { file_path: path.join(work, "ok.txt") })).toMatchObject({
      success: true,
      text: "L1: fine",
    });
  });

  it("the helper dies with a SIGKILLed host (the CLI on dist/)", async () => {
    const cli = path.join(ROOT, "dist", "bin", "toolcall.js");
    const helperJs = path.join(ROOT, "dist", "bin", "sandbox-helper.js");
    if (!existsSync(cli) || !existsSync(helperJs)) throw new Error("dist/ is not built: run `npm run build` first");
    await writeFile(path.join(work, "ok.txt"), "fine\n");
    const host = spawn(process.execPath, [cli, "exec", "--sandbox", "workspace-write", "--cwd", work], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    children.push(host);
    const call = { type: "function_call", call_id: "c1", name: "read_file", arguments: "" };
    call.arguments = JSON.stringify({ file_path: path.join(work, "ok.txt") });
    host.stdin.write(`${JSON.stringify(call)}\n`); // stdin stays open: the turn goes on
    // bubblewrap, its init and node: at least bubblewrap and node.
    await until(async () => (await processesHolding(helperJs)).length >= 2, "the CLI's helper to start");
    const gone = new Promise((r) => host.once("exit", r));
    host.kill("SIGKILL");
    await gone;
    // bubblewrap and node inside it, all gone.
    await until(async () => (await processesHolding(helperJs)).length === 0, "the helper to die with its host");
  });
});

describeSandbox("S14: non-regular files are refused at once, in the sandbox and out of it", () => {
  for (const mode of ["workspace-write", "danger-full-access"] as const) {
    it(`${mode}: apply_patch, write_file, edit_file and read_file on FIFOs answer at once; later reads work`, async () => {
      const env = await environment(mode);
      const call = await session(env);
      for (const name of ["f1", "f2", "f3", "f4", "f5"]) {
        const made = spawn("mkfifo", [path.join(work, name)]);
        await new Promise((r) => made.once("exit", r));
      }
      await writeFile(path.join(work, "ok.txt"), "fine\n");
      await writeFile(path.join(work, "src.txt"), "a\n");
      const update = (p: string, move = ""): string =>
        `*** Begin Patch\n*** Update File: ${p}\n${move}@@\n-a\n+b\n*** End Patch`;
      const refusals = [
        await call("apply_patch", { input: update("f1") }),
        await call("apply_patch", { input: "*** Begin Patch\n*** Delete File: f2\n*** End Patch" }),
        await call("apply_patch", { input: update("f3", "*** Move to: g3\n") }),
        await call("apply_patch", { input: update("src.txt", "*** Move to: f4\n") }),
        await call("apply_patch", { input: addFile("f4") }),
        await call("read_file", { file_path: path.join(work, "f5") }),
        await call("write_file", { file_path: path.join(work, "f5"), content: "x" }),
        await call("edit_file", { file_path: path.join(work, "f5"), old_string: "a", new_string: "b" }),
      ];
      for (const answer of refusals) {
        expect(answer.success).toBe(false);
        expect(answer.text).toMatch(/is not a regular file/);
      }
      expect(await readFile(path.join(work, "src.txt"), "utf8")).toBe("a\n");
      expect(existsSync(path.join(work, "g3"))).toBe(false);
      expect(await call("read_file", { file_path: path.join(work, "ok.txt") })).toMatchObject({
        success: true,
        text: "L1: fine",
      });
      expect(await readFile(path.join(work, "ok.txt"), "utf8")).toBe("fine\n");
    });
  }
});
