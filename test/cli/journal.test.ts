// `toolcall exec --journal DIR [--resume TURN_ID]` (DESIGN section 17), on the built CLI.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  collect,
  jsonLines,
  killProcessesWith,
  processesWith,
  runCli,
  spawnCli,
  uniqueMarker,
  waitFor,
  withTempDir,
} from "./helpers.js";

const shell = (callId: string, script: string, cwd: string): string =>
  JSON.stringify({
    type: "function_call",
    call_id: callId,
    name: "shell",
    arguments: JSON.stringify({ command: ["bash", "-c", script], workdir: cwd }),
  });
const FLAGS = ["--sandbox", "danger-full-access", "--permissions", "bypass"];

describe("exec --journal", () => {
  it("a SIGKILLed exec resumes: what ran is answered from the journal, the running mutating call is not run twice", async () => {
    await withTempDir(async (dir) => {
      const journal = path.join(dir, "journal");
      const effects = path.join(dir, "effects.txt");
      const marker = uniqueMarker();
      const lines = [
        shell("c1", `echo one >> ${effects}; echo first`, dir),
        shell("c2", `echo two >> ${effects}; exec sleep ${marker}`, dir),
      ];
      const child = spawnCli(["exec", ...FLAGS, "--journal", journal], { cwd: dir });
      const done = collect(child);
      // Input stays open: the turn is still running when the process dies. The second call is
      // sent once the first one's output is journaled (shell calls may run side by side).
      child.stdin?.write(`${lines[0]!}\n`);
      const outcomeOf = (callId: string) => async (): Promise<boolean> => {
        const files = existsSync(journal) ? readdirSync(journal) : [];
        return files.some((f) =>
          readFileSync(path.join(journal, f), "utf8").includes(`"type":"outcome","callId":"${callId}"`),
        );
      };
      await waitFor(outcomeOf("c1"), "the first call's output in the journal");
      child.stdin?.write(`${lines[1]!}\n`);
      await waitFor(async () => (await processesWith(marker)).length > 0, "the second command to start");
      child.kill("SIGKILL");
      const killed = await done;
      const turnId = /turn (\S+) \(journal /.exec(killed.stderr)?.[1];
      expect(turnId, killed.stderr).toBeDefined();
      // The watchdog kills what the dead process started.
      await waitFor(async () => (await processesWith(marker)).length === 0, "the orphaned sleep to be killed");

      const file = path.join(journal, `${turnId!}.jsonl`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(journal).mode & 0o777).toBe(0o700);
      const resumed = await runCli(["exec", ...FLAGS, "--journal", journal, "--resume", turnId!], {
        cwd: dir,
        input: `${lines.join("\n")}\n`,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      const outputs = jsonLines(resumed.stdout);
      expect(outputs.map((o) => o["call_id"])).toEqual(["c1", "c2"]);
      expect(outputs[0]?.["output"]).toMatch(/Output:\nfirst\n$/);
      expect(outputs[1]?.["output"]).toBe(
        "interrupted: shell was running when the agent stopped; it may or may not have taken effect. Check before running it again.",
      );
      expect(readFileSync(effects, "utf8")).toBe("one\ntwo\n");
      expect(readFileSync(file, "utf8").trim().split("\n").at(-1)).toBe(`{"turnId":"${turnId!}","type":"turn_end"}`);
      await killProcessesWith(marker);
    });
  });

  it("--resume needs --journal, and a turn id that can name a file", async () => {
    await withTempDir(async (dir) => {
      const [noJournal, badId] = await Promise.all([
        runCli(["exec", "--resume", "t1"], { cwd: dir }),
        runCli(["exec", "--journal", path.join(dir, "j"), "--resume", "../etc/passwd"], { cwd: dir }),
      ]);
      expect(noJournal.code).toBe(2);
      expect(noJournal.stderr).toContain("--resume needs --journal DIR");
      expect(badId.code).toBe(2);
      expect(badId.stderr).toContain("--resume: turn id must be");
      expect(existsSync(path.join(dir, "j"))).toBe(false);
    });
  });
});
