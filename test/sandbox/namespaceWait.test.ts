/**
 * The end of a bubblewrap's group is waited for on two processes, not by scanning /proc (issue
 * 31): bubblewrap's namespace init outlives bubblewrap as a zombie re-parented to the system's
 * init, so the group outlives its last running member; startInBwrap reads the init's host pid
 * from bubblewrap's --info-fd, and once that init has exited the kernel has ended every process
 * of the namespace (also when it leads a session of its own: the sandbox's --new-session).
 * Checked against the namespace's real members, found by their pid namespace.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { processAlive, processGroupAlive, releaseGroup } from "../../src/process/index.js";
import { bwrapArgs, sandboxSeccomp, unconfinedBwrapArgs } from "../../src/sandbox/bwrap.js";
import { startInBwrap } from "../../src/sandbox/bwrapStart.js";
import { describeSandbox, Scratch } from "./helpers.js";

const scratch = new Scratch();
let cwd = "";
beforeAll(async () => {
  cwd = await scratch.inTmp("nswait");
});
afterAll(() => scratch.cleanup());

/** The pids whose PID namespace is `pid`'s (its namespace's members, as the host sees them). */
function namespaceMembers(pid: number): number[] {
  const ns = readlinkSync(`/proc/${pid}/ns/pid`);
  return readdirSync("/proc").flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      return readlinkSync(`/proc/${name}/ns/pid`) === ns ? [Number(name)] : [];
    } catch {
      return []; // gone meanwhile, or a zombie
    }
  });
}

const SANDBOX = { mode: "workspace-write" as const, writableRoots: [] as string[], networkAccess: false };
const modes = {
  "full access": () => ["bwrap", ...unconfinedBwrapArgs(cwd)],
  sandboxed: () => ["bwrap", ...bwrapArgs(SANDBOX, [cwd], cwd)],
};

describeSandbox("waiting for a bubblewrap's group", () => {
  for (const [mode, launcher] of Object.entries(modes)) {
    it(`knows its namespace's init and ends every member of it (${mode})`, async () => {
      const sandboxed = mode === "sandboxed";
      const started = await startInBwrap(launcher, ["sh", "-c", "sleep 300 & sleep 300 & echo up; wait"], {
        cwd,
        env: { PATH: process.env["PATH"] ?? "" },
        stdin: "ignore",
        ...(sandboxed && { seccomp: sandboxSeccomp(SANDBOX) }),
      });
      const { pgid } = started;
      await new Promise<void>((resolve) =>
        started.child.stdout?.once("data", () => {
          resolve();
        }),
      );
      const ns = await vi.waitFor(() => {
        const found = started.namespaceInit?.();
        expect(found).toBeDefined();
        return found!;
      });
      // bubblewrap's own child, inside its namespace with the command and both sleeps.
      const children = readFileSync(`/proc/${pgid}/task/${pgid}/children`, "utf8").trim().split(" ").map(Number);
      expect(children).toEqual([ns.pid]);
      expect(readlinkSync(`/proc/${ns.pid}/ns/pid`)).toBe(`pid:[${ns.namespace}]`);
      const members = namespaceMembers(ns.pid);
      expect(members).toContain(ns.pid);
      expect(members.length).toBeGreaterThanOrEqual(4);
      expect(processGroupAlive(pgid, ns)).toBe(true);
      await releaseGroup(started);
      expect(members.filter((pid) => processAlive(pid))).toEqual([]);
      expect(processGroupAlive(pgid, ns)).toBe(false);
    });
  }
});
