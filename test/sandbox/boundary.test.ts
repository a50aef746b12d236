/**
 * What a sandboxed command sees (DESIGN section 12, "The boundary is the kernel's"), each a
 * reproduction from the security review of 2026-11-26: host Unix sockets (the Docker socket),
 * the seccomp filter, nested repositories' `.git` and the protected files (S11), credentials
 * outside any readable root. Real bubblewrap, real sockets, real files.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { SandboxDenial } from "../../src/protocol/index.js";
import { createExecEnvironment } from "../../src/sandbox/index.js";
import { describeSandbox, run, Scratch } from "./helpers.js";

const scratch = new Scratch();
let ws: string;
const servers: net.Server[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  ws = await scratch.outside("boundary");
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.unref();
    await new Promise((r) => s.close(r));
  }
  for (const c of cleanups.splice(0)) await c();
});
afterAll(() => scratch.cleanup());

/** A Docker-socket look-alike: answers `HTTP/1.0 200 OK` to anything; counts who connected. */
async function socketServer(file: string): Promise<{ file: string; connections: () => number }> {
  let n = 0;
  const server = net.createServer((c) => {
    n++;
    c.on("error", () => undefined);
    c.once("data", () => c.end("HTTP/1.0 200 OK\r\n\r\nOK"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(file, resolve);
  });
  servers.push(server);
  cleanups.push(() => rm(file, { force: true }));
  return { file, connections: () => n };
}

/** python3 connecting to each socket in turn, printing one line per socket: its answer or its error. */
const CONNECT = `import socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(p)
        s.sendall(b"GET /_ping HTTP/1.0\\r\\n\\r\\n")
        print(p, s.recv(100).decode().splitlines()[0])
    except OSError as e:
        print(p, type(e).__name__, e.strerror)`;

async function hostSockets(): Promise<Array<{ file: string; connections: () => number }>> {
  const inTmp = await scratch.inTmp("sock");
  const outside = await scratch.outside("sock");
  const socks = [
    await socketServer(path.join(inTmp, "docker.sock")),
    await socketServer(path.join(outside, "docker.sock")),
    await socketServer(path.join(ws, "in-workspace.sock")),
  ];
  // The Docker socket's own place, where this machine lets the test write.
  try {
    socks.push(await socketServer(`/run/toolcall-test-${process.pid}-${Date.now()}.sock`));
  } catch {
    // /run not writable here: the three above stand
  }
  return socks;
}

describeSandbox("host Unix sockets are out of reach", () => {
  it("a workspace-write command reaches no host socket: in TMPDIR, under /run, elsewhere, in the workspace", async () => {
    const socks = await hostSockets();
    const env = await createExecEnvironment({ cwd: ws, sandbox: { mode: "workspace-write" } });
    const result = await run(env, ["python3", "-c", CONNECT, ...socks.map((s) => s.file)], { cwd: ws });
    expect(result.output).not.toContain("200 OK");
    // The seccomp filter refuses the socket itself.
    expect(result.output.match(/PermissionError Operation not permitted/g)).toHaveLength(socks.length);
    expect(socks.map((s) => s.connections())).toEqual(socks.map(() => 0));
    // The same command outside the sandbox does connect: the servers work.
    const full = await createExecEnvironment({ cwd: ws, sandbox: { mode: "danger-full-access" } });
    const control = await run(full, ["python3", "-c", CONNECT, ...socks.map((s) => s.file)], { cwd: ws });
    expect(control.output.match(/200 OK/g)).toHaveLength(socks.length);
  });

  it("allowUnixSockets: the named socket is reached; every other stays hidden, though Unix sockets may be made", async () => {
    const socks = await hostSockets();
    const allowed = await socketServer(path.join(await scratch.outside("allowed"), "agent.sock"));
    const env = await createExecEnvironment({
      cwd: ws,
      sandbox: { mode: "workspace-write", allowUnixSockets: [allowed.file] },
    });
    const result = await run(env, ["python3", "-c", CONNECT, allowed.file, ...socks.map((s) => s.file)], { cwd: ws });
    const lines = result.output.trim().split("\n");
    expect(lines[0]).toBe(`${allowed.file} HTTP/1.0 200 OK`);
    expect(lines.slice(1)).toHaveLength(socks.length);
    for (const line of lines.slice(1)) expect(line).toMatch(/ (ConnectionRefusedError|FileNotFoundError) /);
    expect(allowed.connections()).toBe(1);
    expect(socks.map((s) => s.connections())).toEqual(socks.map(() => 0));
  });
});

describeSandbox("the seccomp filter", () => {
  const make = (family: string): string[] => [
    "python3",
    "-c",
    `import socket; socket.socket(socket.${family}); print("made")`,
  ];

  it("refuses socket(AF_UNIX) in every sandboxed mode, and AF_INET/AF_INET6 without network; socketpair stays", async () => {
    for (const mode of ["workspace-write", "read-only"] as const) {
      const env = await createExecEnvironment({ cwd: ws, sandbox: { mode } });
      for (const family of ["AF_UNIX", "AF_INET", "AF_INET6"]) {
        const result = await run(env, make(family), { cwd: ws });
        expect(result.exitCode, `${mode} ${family}`).not.toBe(0);
        expect(result.output).toContain("PermissionError: [Errno 1] Operation not permitted");
      }
      const pair = await run(env, ["python3", "-c", "import socket; socket.socketpair(); print('pair')"], { cwd: ws });
      expect(pair).toEqual({ exitCode: 0, output: "pair\n" });
    }
  });

  it("with networkAccess, AF_INET sockets are made; AF_UNIX is still refused", async () => {
    const env = await createExecEnvironment({ cwd: ws, sandbox: { mode: "workspace-write", networkAccess: true } });
    expect(await run(env, make("AF_INET"), { cwd: ws })).toEqual({ exitCode: 0, output: "made\n" });
    expect((await run(env, make("AF_UNIX"), { cwd: ws })).output).toContain("Operation not permitted");
  });
});

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8", stdio: "pipe" });

describeSandbox("protected paths inside writable roots (S11)", () => {
  it("a nested repository's .git, a .git file's gitdir target and the protected files stay read-only at any depth", async () => {
    const root = await scratch.outside("s11");
    git(root, "init", "-q");
    const sub = path.join(root, "vendor", "sub");
    await mkdir(sub, { recursive: true });
    git(sub, "init", "-q");
    // A submodule-style checkout whose git directory has an ordinary name.
    await mkdir(path.join(root, "store", "mod"), { recursive: true });
    git(root, "init", "-q", "--bare", path.join(root, "store", "mod"));
    await mkdir(path.join(root, "mod"));
    await writeFile(path.join(root, "mod", ".git"), "gitdir: ../store/mod\n");
    const protectedFiles = [
      "a/b/c/.bashrc",
      "d/.mcp.json",
      "toolcall.toml",
      "e/.gitmodules",
      "f/.claude/settings.json",
    ];
    for (const f of protectedFiles) {
      await mkdir(path.dirname(path.join(root, f)), { recursive: true });
      await writeFile(path.join(root, f), "original\n");
    }
    const marker = path.join(await scratch.outside("fsmon"), "FSMON-RAN");
    const env = await createExecEnvironment({ cwd: root, sandbox: { mode: "workspace-write" } });
    const attempts = [
      `git -C vendor/sub config core.fsmonitor 'touch ${marker}; false'`,
      "printf '#!/bin/sh\\ntouch /tmp/x\\n' > vendor/sub/.git/hooks/post-checkout",
      "echo '[core] fsmonitor = x' >> store/mod/config",
      "mv vendor/sub/.git vendor/sub/.git-old",
      ...protectedFiles.map((f) => `echo hostile > ${f}`),
    ];
    for (const cmd of attempts) {
      const result = await run(env, ["bash", "-c", cmd], { cwd: root });
      expect(result.exitCode, cmd).not.toBe(0);
      expect(result.output, cmd).toMatch(/Read-only file system|Device or resource busy/);
    }
    for (const f of protectedFiles) expect(await readFile(path.join(root, f), "utf8")).toBe("original\n");
    expect(existsSync(path.join(sub, ".git", "hooks", "post-checkout"))).toBe(false);
    expect(await readFile(path.join(root, "store", "mod", "config"), "utf8")).not.toContain("fsmonitor");
    // The rest stays writable, a new file beside them too.
    expect(await run(env, ["bash", "-c", "echo ok > vendor/sub/file.txt && echo ok > a/b/c/x"], { cwd: root })).toEqual(
      {
        exitCode: 0,
        output: "",
      },
    );
    // And the user's own `git status` in the nested repository runs nothing the sandbox wrote.
    git(sub, "status", "--short");
    expect(existsSync(marker)).toBe(false);
  });
});

describeSandbox("credentials are unreadable without readableRoots", () => {
  it("~/.ssh, ~/.aws, ~/.netrc, ..., /etc/shadow and the token store: hidden from commands, refused by the readers", async () => {
    const home = await scratch.outside("home");
    const secrets: Record<string, string> = {
      ".ssh/id_ed25519": "SSH-SECRET",
      ".aws/credentials": "AWS-SECRET",
      ".gnupg/private.key": "GPG-SECRET",
      ".config/gcloud/credentials.db": "GCLOUD-SECRET",
      ".kube/config": "KUBE-SECRET",
      ".docker/config.json": "DOCKER-SECRET",
      ".netrc": "NETRC-SECRET",
      ".toolcall/mcp-oauth/server.json": "OAUTH-SECRET",
    };
    for (const [file, content] of Object.entries(secrets)) {
      await mkdir(path.dirname(path.join(home, file)), { recursive: true });
      await writeFile(path.join(home, file), content);
    }
    await writeFile(path.join(home, "notes.txt"), "not a secret");
    const saved = { HOME: process.env["HOME"], TOOLCALL_HOME: process.env["TOOLCALL_HOME"] };
    process.env["HOME"] = home;
    delete process.env["TOOLCALL_HOME"];
    cleanups.push(async () => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
    expect(os.homedir()).toBe(home);
    const files = Object.keys(secrets).map((f) => path.join(home, f));
    for (const mode of ["workspace-write", "read-only"] as const) {
      const env = await createExecEnvironment({ cwd: ws, sandbox: { mode } });
      const result = await run(env, ["bash", "-c", `cat ${files.join(" ")} /etc/shadow; cat ${home}/notes.txt`], {
        cwd: ws,
      });
      for (const content of Object.values(secrets)) expect(result.output).not.toContain(content);
      expect(result.output).not.toMatch(/^root:/m);
      expect(result.output).toContain("not a secret");
      for (const file of [...files, "/etc/shadow"]) {
        const err = await env.checkRead(file).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, file).toBeInstanceOf(SandboxDenial);
        expect((err as Error).message).toBe(
          `denied by sandbox: ${file} holds credentials, which the sandbox does not read`,
        );
      }
      await expect(env.checkRead(path.join(home, "notes.txt"))).resolves.toBeUndefined();
    }
    // Under readableRoots the home is absent, and hiding its credentials must not bring back
    // their names as empty mount points.
    const other = await scratch.outside("readable");
    const narrow = await createExecEnvironment({
      cwd: ws,
      sandbox: { mode: "workspace-write", readableRoots: [other] },
    });
    const listing = await run(narrow, ["ls", "-A", home], { cwd: ws });
    expect(listing.exitCode).not.toBe(0);
    expect(listing.output).toContain("No such file or directory");
    // Full access confines nothing, so the readers claim nothing either.
    const full = await createExecEnvironment({ cwd: ws, sandbox: { mode: "danger-full-access" } });
    await expect(full.checkRead(files[0]!)).resolves.toBeUndefined();
  });
});
