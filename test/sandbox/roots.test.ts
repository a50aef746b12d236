/**
 * `checkWrite` / `checkRead` on a real file system (DESIGN section 12): paths resolved with
 * realpath, so neither `..` nor a symlink leaves a root; the denial names the path as given.
 * No bubblewrap needed: these checks run in the host process.
 */
import { execFile } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionCallError, SandboxDenial, type ExecEnvironment } from "../../src/protocol/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { Scratch } from "./helpers.js";

const scratch = new Scratch();
let ws: string;
let outside: string;
let env: ExecEnvironment;

beforeAll(async () => {
  ws = await scratch.outside("roots-ws");
  outside = await scratch.outside("roots-out");
  await mkdir(path.join(ws, "sub"));
  await mkdir(path.join(ws, ".git"));
  await writeFile(path.join(outside, "existing.txt"), "x");
  await symlink(outside, path.join(ws, "dir-link"));
  await symlink(path.join(outside, "existing.txt"), path.join(ws, "file-link"));
  await symlink(path.join(outside, "not-yet.txt"), path.join(ws, "dangling"));
  await symlink(path.join("..", path.basename(outside), "later.txt"), path.join(ws, "dangling-relative"));
  await symlink(path.join(ws, "sub"), path.join(ws, "inside-link"));
  await symlink(path.join(ws, ".git"), path.join(ws, "git-link"));
  await symlink(path.join(ws, "loop-b"), path.join(ws, "loop-a"));
  await symlink(path.join(ws, "loop-a"), path.join(ws, "loop-b"));
  env = await createExecEnvironment({ cwd: ws, sandbox: { mode: "workspace-write" } });
});
afterAll(() => scratch.cleanup());

/** The error `promise` rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error("expected a rejection");
  return err;
}

async function expectDenied(e: ExecEnvironment, paths: string[], given: string, text: string): Promise<void> {
  const err = await rejection(e.checkWrite(paths));
  expect(err).toBeInstanceOf(SandboxDenial);
  expect(err).toMatchObject({ kind: "respond_to_model", path: given, message: text });
}

const outsideText = (p: string): string => `denied by sandbox: ${p} is outside the writable roots`;

describe("checkWrite", () => {
  it("allows the cwd (existing or new nested paths) and `..` that stays inside", async () => {
    await expect(
      env.checkWrite([
        "a.txt",
        "sub",
        "new/deeply/nested/file.txt",
        path.join(ws, "b.txt"),
        "sub/../c.txt",
        "inside-link/d.txt",
        "inside-link/../e.txt",
      ]),
    ).resolves.toBeUndefined();
  });

  it("denies the host's temporary directory: commands get a private /tmp, never the host's", async () => {
    const tmp = path.join(os.tmpdir(), "anything.txt");
    await expectDenied(env, [tmp], tmp, outsideText(tmp));
  });

  it("denies a path outside, naming it as given", async () => {
    const abs = path.join(outside, "x.txt");
    await expectDenied(env, [abs], abs, outsideText(abs));
    // The first path denied is named, not the ones before it.
    await expectDenied(env, ["ok.txt", abs, "/etc/y"], abs, outsideText(abs));
    // Relative paths resolve against opts.cwd.
    const err = await rejection(env.checkWrite(["rel.txt"], { cwd: outside }));
    expect(err.message).toBe(outsideText("rel.txt"));
  });

  it("denies a `..` escape", async () => {
    const rel = path.join("..", path.basename(outside), "x.txt");
    await expectDenied(env, [rel], rel, outsideText(rel));
    await expectDenied(env, ["sub/../../x.txt"], "sub/../../x.txt", outsideText("sub/../../x.txt"));
  });

  it("follows symlinks inside the cwd to their targets: existing, dangling, relative, to a directory", async () => {
    for (const p of ["file-link", "dir-link/new.txt", "dir-link", "dangling", "dangling-relative"]) {
      await expectDenied(env, [p], p, outsideText(p));
    }
  });

  it("takes `..` after a symlink from the link's target, as the kernel does", async () => {
    // `fs.writeFile("{ws}/dir-link/../x")` lands beside the link's target, outside every root,
    // though `path.resolve` makes it `{ws}/x`: both readings must stay inside.
    for (const p of ["dir-link/../x.txt", `${ws}/dir-link/../x.txt`, "dir-link/../../x.txt"]) {
      await expectDenied(env, [p], p, outsideText(p));
    }
  });

  it("rejects a symlink loop instead of hanging", async () => {
    const err = await rejection(env.checkWrite(["loop-a/x"]));
    expect((err as NodeJS.ErrnoException).code).toBe("ELOOP");
  });

  it("keeps .git read-only, also reached through a symlink", async () => {
    for (const p of [".git/x", ".git/hooks/pre-commit", "git-link/config", ".git"]) {
      await expectDenied(env, [p], p, `denied by sandbox: ${p} is inside .git, which stays read-only`);
    }
    await expect(env.checkWrite([".gitignore", "sub/.github/x", "sub/git/x"])).resolves.toBeUndefined();
  });

  it("keeps every nested repository's .git, a .git file's gitdir target and the protected files read-only (S11)", async () => {
    const nested = path.join(ws, "vendor", "lib");
    await mkdir(path.join(nested, ".git", "hooks"), { recursive: true });
    // A submodule-style `.git` file pointing at a git directory with an ordinary name.
    await mkdir(path.join(ws, "store", "modules-sub"), { recursive: true });
    await mkdir(path.join(ws, "sm"), { recursive: true });
    await writeFile(path.join(ws, "sm", ".git"), "gitdir: ../store/modules-sub\n");
    for (const p of [
      "vendor/lib/.git/config",
      "vendor/lib/.git/hooks/post-checkout",
      "a/b/c/.git/hooks/x",
      "sm/.git",
    ]) {
      await expectDenied(env, [p], p, `denied by sandbox: ${p} is inside .git, which stays read-only`);
    }
    await expectDenied(
      env,
      ["store/modules-sub/config"],
      "store/modules-sub/config",
      "denied by sandbox: store/modules-sub/config is inside a repository's git directory, which stays read-only",
    );
    for (const name of [
      ".gitmodules",
      ".bashrc",
      ".zshrc",
      ".profile",
      ".bash_profile",
      ".mcp.json",
      "toolcall.toml",
    ]) {
      for (const p of [name, `deep/er/${name}`]) {
        await expectDenied(env, [p], p, `denied by sandbox: ${p} is a ${name} file, which stays read-only`);
      }
    }
    for (const dir of [".claude", ".codex"]) {
      const p = `x/${dir}/settings.json`;
      await expectDenied(env, [p], p, `denied by sandbox: ${p} is inside ${dir}, which stays read-only`);
    }
    await expect(
      env.checkWrite(["store/other/config", "notes/bashrc.txt", "toolcall.toml.md"]),
    ).resolves.toBeUndefined();
  });

  it("read-only denies the cwd; danger-full-access allows everything", async () => {
    const ro = await createExecEnvironment({ cwd: ws, sandbox: { mode: "read-only" } });
    await expectDenied(ro, ["a.txt"], "a.txt", outsideText("a.txt"));
    await expectDenied(
      ro,
      [path.join(os.tmpdir(), "t")],
      path.join(os.tmpdir(), "t"),
      outsideText(path.join(os.tmpdir(), "t")),
    );

    const full = await createExecEnvironment({ cwd: ws, sandbox: { mode: "danger-full-access" } });
    await expect(
      full.checkWrite([path.join(outside, "x"), "dangling", ".git/config", "/etc/hosts"]),
    ).resolves.toBeUndefined();
  });

  it("writableRoots, relative to the cwd, add roots; one that does not exist is skipped", async () => {
    const extra = await createExecEnvironment({
      cwd: ws,
      sandbox: { mode: "workspace-write", writableRoots: [path.relative(ws, outside), "/does/not/exist"] },
    });
    expect(extra.sandbox.writableRoots).toContain(outside);
    expect(extra.sandbox.writableRoots).not.toContain("/does/not/exist");
    await expect(extra.checkWrite(["dangling", path.join(outside, "y")])).resolves.toBeUndefined();
  });
});

describe("checkRead", () => {
  it("refuses a FIFO and /dev/null without blocking; files, directories and missing paths pass", async () => {
    const fifo = path.join(ws, "pipe");
    await promisify(execFile)("mkfifo", [fifo]);
    for (const e of [env, await createExecEnvironment({ cwd: ws })]) {
      for (const p of ["pipe", fifo, "/dev/null"]) {
        const err = await rejection(e.checkRead(p));
        expect(err).toBeInstanceOf(FunctionCallError);
        expect(err.message).toBe(`${p} is not a regular file`);
      }
      for (const p of ["sub", "file-link", path.join(outside, "existing.txt"), "missing.txt"]) {
        await expect(e.checkRead(p)).resolves.toBeUndefined();
      }
    }
  });

  it("readableRoots: outside them is denied, through symlinks too; the cwd and the roots pass", async () => {
    const readable = await scratch.outside("roots-readable");
    await writeFile(path.join(readable, "r.txt"), "r");
    await writeFile(path.join(ws, "w.txt"), "w");
    const e = await createExecEnvironment({ cwd: ws, sandbox: { mode: "workspace-write", readableRoots: [readable] } });
    for (const p of [path.join(readable, "r.txt"), "w.txt", readable]) {
      await expect(e.checkRead(p)).resolves.toBeUndefined();
    }
    for (const p of [
      path.join(outside, "existing.txt"),
      "file-link",
      "/etc/hostname",
      `../${path.basename(outside)}`,
      // Read as written: {ws}/{outside's name}/existing.txt, inside; by the kernel: outside.
      `dir-link/../${path.basename(outside)}/existing.txt`,
    ]) {
      const err = await rejection(e.checkRead(p));
      expect(err).toBeInstanceOf(SandboxDenial);
      expect(err.message).toBe(`denied by sandbox: ${p} is outside the readable roots`);
    }
    // Under read-only the workspace is readable, os.tmpdir() is not (it is no root there).
    const ro = await createExecEnvironment({ cwd: ws, sandbox: { mode: "read-only", readableRoots: [readable] } });
    await expect(ro.checkRead("w.txt")).resolves.toBeUndefined();
    expect((await rejection(ro.checkRead(path.join(os.tmpdir(), "t")))).message).toBe(
      `denied by sandbox: ${path.join(os.tmpdir(), "t")} is outside the readable roots`,
    );
  });
});
