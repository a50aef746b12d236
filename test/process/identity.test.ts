/**
 * Which host process a container's labels name (DESIGN section 16), and the exit actions that
 * remove a container when its host ends without closing it.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { identityDead, ownIdentity } from "../../src/process/index.js";
import { collect, TSX, withTempDir } from "../cli/helpers.js";

describe("identityDead", () => {
  it("is false for this process, true once a process of this boot has exited or its pid was reused", async () => {
    const me = ownIdentity();
    expect(me.pid).toBe(process.pid);
    expect(identityDead(me)).toBe(false);
    const child = spawn("true");
    const pid = child.pid!;
    await once(child, "exit");
    expect(identityDead({ ...me, pid })).toBe(true);
    // Alive, but started at another time: another process under a reused pid.
    expect(identityDead({ ...me, start: `${me.start}1` })).toBe(true);
  });

  it("never judges a process of another machine or boot", async () => {
    const child = spawn("true");
    const pid = child.pid!;
    await once(child, "exit");
    expect(identityDead({ pid, boot: "another-boot", start: "1" })).toBe(false);
  });
});

describe("onHostExit", () => {
  const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "exitAction.ts");
  const host = (dir: string, mode: "exit" | "wait") =>
    spawn(process.execPath, ["--import", TSX, fixture, dir, mode], { stdio: ["ignore", "pipe", "pipe"] });

  it("runs the registered actions at process.exit, not the removed ones", async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await collect(host(dir, "exit"));
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(existsSync(path.join(dir, "kept"))).toBe(true);
      expect(existsSync(path.join(dir, "removed"))).toBe(false);
    });
  });

  it("runs them when an unhandled SIGTERM ends the host, which still dies of it", async () => {
    await withTempDir(async (dir) => {
      const child = host(dir, "wait");
      const result = collect(child);
      await once(child.stdout, "data");
      child.kill("SIGTERM");
      expect((await result).signal).toBe("SIGTERM");
      expect(existsSync(path.join(dir, "kept"))).toBe(true);
      expect(existsSync(path.join(dir, "removed"))).toBe(false);
    });
  });
});
