/**
 * Commands in bubblewrap (DESIGN section 12): what they may write and read, proved by what
 * they left on disk. Every "outside" directory lies outside os.tmpdir(); commands get a private
 * /tmp and never see the host's.
 */
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { ROOT } from "../cli/helpers.js";
import { describeSandbox, run, Scratch } from "./helpers.js";

const RO = "Read-only file system";
const scratch = new Scratch();
let workspace: string;
let outside: string;
let tmp: string;

beforeAll(async () => {
  workspace = await scratch.outside("ws");
  outside = await scratch.outside("out");
  tmp = await scratch.inTmp("tmp");
});
afterAll(() => scratch.cleanup());

describeSandbox("workspace-write", () => {
  it("writes the cwd and its private /tmp, not elsewhere (not the host's temporary directory)", async () => {
    const env = await createExecEnvironment({ cwd: workspace, sandbox: { mode: "workspace-write" } });
    expect(env.kind).toBe("bubblewrap");

    const inside = await run(env, ["bash", "-c", "echo hi > inside.txt"], { cwd: workspace });
    expect(inside).toEqual({ exitCode: 0, output: "" });
    expect(await readFile(path.join(workspace, "inside.txt"), "utf8")).toBe("hi\n");

    const target = path.join(outside, "f.txt");
    const denied = await run(env, ["touch", target], { cwd: workspace });
    expect(denied.exitCode).not.toBe(0);
    expect(denied.output).toContain(RO);
    expect(existsSync(target)).toBe(false);

    // `..` from the cwd lands outside as well: the kernel judges the bind mounts, not the path.
    const dotdot = path.join("..", path.basename(outside), "g.txt");
    expect((await run(env, ["touch", dotdot], { cwd: workspace })).output).toContain(RO);
    expect(existsSync(path.join(outside, "g.txt"))).toBe(false);

    // Its own /tmp, empty at start, is TMPDIR; the host's temporary directory is not there.
    const name = `sbtest-private-${process.pid}-${Date.now()}.txt`;
    const own = await run(env, ["bash", "-c", `ls -A /tmp; echo "$TMPDIR" > /tmp/${name} && cat /tmp/${name}`], {
      cwd: workspace,
    });
    // (Only this package's own directory shows there, read-only, when it lives under /tmp.)
    const ownDir = realpathSync(ROOT).startsWith("/tmp/") ? `${realpathSync(ROOT).split("/")[2]}\n` : "";
    expect(own).toEqual({ exitCode: 0, output: `${ownDir}/tmp\n` });
    expect(existsSync(path.join("/tmp", name))).toBe(false);
    const hostTmp = await run(env, ["touch", path.join(tmp, "t.txt")], { cwd: workspace });
    expect(hostTmp.exitCode).not.toBe(0);
    expect(existsSync(path.join(tmp, "t.txt"))).toBe(false);
  });

  it("writableRoots adds a root (and only that one)", async () => {
    const extra = await scratch.outside("extra");
    const env = await createExecEnvironment({
      cwd: workspace,
      sandbox: { mode: "workspace-write", writableRoots: [extra] },
    });
    expect((await run(env, ["touch", path.join(extra, "e.txt")], { cwd: workspace })).exitCode).toBe(0);
    expect(existsSync(path.join(extra, "e.txt"))).toBe(true);
    expect((await run(env, ["touch", path.join(outside, "e.txt")], { cwd: workspace })).output).toContain(RO);
    expect(existsSync(path.join(outside, "e.txt"))).toBe(false);
  });

  it("a command cannot remount / read-write, not even as root", async () => {
    // Run as root, bubblewrap keeps every capability unless told to drop them: before
    // `--cap-drop ALL`, `mount -o remount,bind,rw /` succeeded and this write landed.
    const env = await createExecEnvironment({ cwd: workspace, sandbox: { mode: "workspace-write" } });
    const target = path.join(outside, "remount.txt");
    const script = [
      `mount -o remount,bind,rw / 2>/dev/null; touch ${target} 2>/dev/null`,
      `unshare -Urm sh -c 'mount -o remount,bind,rw / && touch ${target}' 2>/dev/null`,
      `test -e ${target} && echo ESCAPED || echo contained`,
    ].join("; ");
    const result = await run(env, ["bash", "-c", script], { cwd: workspace });
    expect(result.output).toBe("contained\n");
    expect(existsSync(target)).toBe(false);
  });

  it("keeps .git read-only while the rest of the cwd is writable (cwd outside and inside os.tmpdir())", async () => {
    for (const cwd of [await scratch.outside("git"), await scratch.inTmp("git")]) {
      await mkdir(path.join(cwd, ".git"));
      await writeFile(path.join(cwd, ".git", "config"), "[core]\n");
      const env = await createExecEnvironment({ cwd, sandbox: { mode: "workspace-write" } });

      const config = await run(env, ["bash", "-c", "echo '[evil]' >> .git/config"], { cwd });
      expect(config.exitCode).not.toBe(0);
      expect(config.output).toContain(RO);
      expect((await run(env, ["touch", ".git/hooks-pre-commit"], { cwd })).output).toContain(RO);
      await run(env, ["rm", "-rf", ".git"], { cwd });
      expect(await readFile(path.join(cwd, ".git", "config"), "utf8")).toBe("[core]\n");
      expect(existsSync(path.join(cwd, ".git", "hooks-pre-commit"))).toBe(false);

      expect((await run(env, ["bash", "-c", "echo ok > src.txt"], { cwd })).exitCode).toBe(0);
      expect(await readFile(path.join(cwd, "src.txt"), "utf8")).toBe("ok\n");
    }
  });
});

describeSandbox("read-only", () => {
  it("every write fails: cwd, its /tmp (empty), elsewhere; the host's temporary directory is not there", async () => {
    const env = await createExecEnvironment({ cwd: workspace, sandbox: { mode: "read-only" } });
    const hostTmp = await run(env, ["bash", "-c", `echo x > ${path.join(tmp, "ro.txt")}`], { cwd: workspace });
    expect(hostTmp.exitCode).not.toBe(0);
    expect(existsSync(path.join(tmp, "ro.txt"))).toBe(false);
    for (const target of [path.join(workspace, "ro.txt"), "/tmp/ro.txt", path.join(outside, "ro.txt")]) {
      const result = await run(env, ["bash", "-c", `echo x > ${target}`], { cwd: workspace });
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toContain(RO);
      expect(existsSync(target)).toBe(false);
    }
    // Reading still works.
    await writeFile(path.join(workspace, "readme.txt"), "read me\n");
    expect(await run(env, ["cat", "readme.txt"], { cwd: workspace })).toEqual({ exitCode: 0, output: "read me\n" });
  });

  it("with readableRoots, / is no writable scratch space either", async () => {
    // `--tmpfs /` under readableRoots took writes outside every root (and lost them on exit)
    // until bubblewrap was told `--remount-ro /`.
    const readable = await scratch.outside("ro-readable");
    for (const mode of ["read-only", "workspace-write"] as const) {
      const env = await createExecEnvironment({ cwd: workspace, sandbox: { mode, readableRoots: [readable] } });
      const result = await run(env, ["bash", "-c", "echo x > /sbtest-root-file && cat /sbtest-root-file"], {
        cwd: workspace,
      });
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toContain(RO);
    }
  });
});

describeSandbox("readableRoots", () => {
  it("commands see the roots, the cwd and the system directories, nothing else", async () => {
    const readable = await scratch.outside("readable");
    const hidden = await scratch.outside("hidden");
    await writeFile(path.join(readable, "r.txt"), "visible\n");
    await writeFile(path.join(hidden, "h.txt"), "secret\n");
    await writeFile(path.join(workspace, "w.txt"), "workspace\n");
    const env = await createExecEnvironment({
      cwd: workspace,
      sandbox: { mode: "workspace-write", readableRoots: [readable] },
    });

    expect(await run(env, ["cat", path.join(readable, "r.txt")], { cwd: workspace })).toEqual({
      exitCode: 0,
      output: "visible\n",
    });
    expect(await run(env, ["cat", "w.txt"], { cwd: workspace })).toEqual({ exitCode: 0, output: "workspace\n" });
    const bin = await run(env, ["ls", "/usr/bin"], { cwd: workspace });
    expect(bin.exitCode).toBe(0);
    expect(bin.output.split("\n")).toContain("bash");

    const ls = await run(env, ["ls", hidden], { cwd: workspace });
    expect(ls.exitCode).not.toBe(0);
    expect(ls.output).toContain("No such file or directory");
    const cat = await run(env, ["cat", path.join(hidden, "h.txt")], { cwd: workspace });
    expect(cat.exitCode).not.toBe(0);
    expect(cat.output).not.toContain("secret");
    // The home directory is hidden; where a root (or this checkout, or node) lives under it, only
    // the path down to it shows (bubblewrap's mount points), nothing beside it.
    const home = await run(env, ["ls", "-A", "/root"], { cwd: workspace });
    const leading = [readable, workspace, realpathSync(ROOT), path.dirname(realpathSync(process.execPath))]
      .filter((dir) => dir.startsWith("/root/"))
      .map((dir) => dir.slice("/root/".length).split("/")[0]);
    if (home.exitCode !== 0) expect(home.output).toContain("No such file or directory");
    else for (const entry of home.output.split("\n").filter(Boolean)) expect(leading).toContain(entry);

    // A readable root is not a writable one.
    const write = await run(env, ["touch", path.join(readable, "w.txt")], { cwd: workspace });
    expect(write.output).toContain(RO);
    expect(existsSync(path.join(readable, "w.txt"))).toBe(false);
  });
});
