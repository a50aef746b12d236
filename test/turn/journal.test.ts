import {
  appendFileSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileJournal, readTurn, resumeStep, type JournalRecord } from "../../src/turn/index.js";

const dirs: string[] = [];
function tmp(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "journal-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const accepted = (callId: string, tool = "shell"): JournalRecord => ({
  turnId: "t1",
  type: "accepted",
  callId,
  tool,
  item: { type: "function_call", call_id: callId, name: tool, arguments: "{}" },
  parallel: false,
});
const outcome = (callId: string, text: string): JournalRecord => ({
  turnId: "t1",
  type: "outcome",
  callId,
  item: { type: "function_call_output", call_id: callId, output: text },
  success: true,
  aborted: false,
});

async function loadAll(journal: FileJournal, turnId: string): Promise<JournalRecord[]> {
  const out: JournalRecord[] = [];
  for await (const r of journal.load(turnId)) out.push(r);
  return out;
}

describe("FileJournal", () => {
  it("writes records in order, 0600 in a 0700 directory, and reads them back", async () => {
    const dir = path.join(tmp(), "j");
    const journal = new FileJournal(dir);
    const records = [accepted("a"), accepted("b"), outcome("b", "B"), outcome("a", "A")];
    const written = records.map((r) => journal.append(r));
    // Appended together, made durable together: one batch, one promise.
    expect(new Set(written).size).toBe(1);
    await Promise.all(written);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(journal.fileOf("t1")).mode & 0o777).toBe(0o600);
    expect(await loadAll(journal, "t1")).toEqual(records);
    await journal.append(outcome("c", "after the first batch"));
    expect((await loadAll(journal, "t1")).length).toBe(5);
    await journal.close();
    await expect(journal.append(accepted("d"))).rejects.toThrow("is closed");
  });

  it("an existing directory is tightened to 0700", async () => {
    const dir = tmp();
    const journal = new FileJournal(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await journal.close();
  });

  it("ignores a torn last line, and cuts it before appending again", async () => {
    const dir = tmp();
    const first = new FileJournal(dir);
    await first.append(accepted("a"));
    await first.close();
    appendFileSync(first.fileOf("t1"), '{"type":"outcome","callId":"a","it');
    const second = new FileJournal(dir);
    expect(await loadAll(second, "t1")).toEqual([accepted("a")]);
    await second.append(outcome("a", "A"));
    expect(await loadAll(second, "t1")).toEqual([accepted("a"), outcome("a", "A")]);
    await second.close();
  });

  it("a damaged line before the last names the file and the line", async () => {
    const dir = tmp();
    const journal = new FileJournal(dir);
    writeFileSync(
      journal.fileOf("t1"),
      `${JSON.stringify(accepted("a"))}\nnot json\n${JSON.stringify(outcome("a", "A"))}\n`,
    );
    await expect(loadAll(journal, "t1")).rejects.toThrow(`${journal.fileOf("t1")}:2: not a journal record`);
    await journal.close();
  });

  it("an unknown turn has no records; a hostile turn id is refused by name", async () => {
    const journal = new FileJournal(tmp());
    expect(await loadAll(journal, "never")).toEqual([]);
    for (const bad of ["../x", "a/b", ".hidden", "", "x".repeat(129)])
      expect(() => journal.fileOf(bad)).toThrow(`turn id must be`);
    await journal.close();
  });

  it("does not follow a symlink planted where a turn's file goes", async () => {
    const dir = tmp();
    const target = path.join(tmp(), "elsewhere.txt");
    writeFileSync(target, "");
    const journal = new FileJournal(dir);
    symlinkSync(target, journal.fileOf("t1"));
    expect(() => journal.append(accepted("a"))).toThrow();
    expect(readFileSync(target, "utf8")).toBe("");
    expect(lstatSync(journal.fileOf("t1")).isSymbolicLink()).toBe(true);
    await journal.close();
  });

  it("redaction rewrites what is written, and marks a changed accepted record", async () => {
    const journal = new FileJournal(tmp(), {
      redact: (r) =>
        r.type === "accepted"
          ? { ...r, item: { ...r.item, arguments: "[redacted]" } }
          : r.type === "outcome"
            ? { ...r, item: { ...r.item, output: "[redacted]" } as typeof r.item }
            : r,
    });
    await Promise.all([journal.append(accepted("a")), journal.append(outcome("a", "secret output"))]);
    const text = readFileSync(journal.fileOf("t1"), "utf8");
    expect(text).not.toContain("secret output");
    const [acc] = await loadAll(journal, "t1");
    expect(acc).toMatchObject({ type: "accepted", redacted: true });
    await journal.close();
  });
});

describe("readTurn and resumeStep", () => {
  const t = (r: Record<string, unknown>): JournalRecord => ({ turnId: "t1", ...r }) as JournalRecord;
  it("answers recorded outcomes, runs what never started or is safe again, interrupts the rest", () => {
    const turn = readTurn([
      accepted("done"),
      t({ type: "started", callId: "done", mutating: true, idempotent: false }),
      outcome("done", "DONE"),
      accepted("queued"),
      accepted("reader"),
      t({ type: "started", callId: "reader", mutating: false, idempotent: false }),
      accepted("writer"),
      t({ type: "started", callId: "writer", mutating: true, idempotent: false }),
      accepted("idem"),
      t({ type: "started", callId: "idem", mutating: true, idempotent: true }),
      accepted("asked"),
      t({ type: "approval_requested", callId: "asked" }),
      accepted("answered"),
      t({ type: "approval_requested", callId: "answered" }),
      t({ type: "approval_decided", callId: "answered", decision: { decision: "allow" } }),
      outcome("ghost", "no such call"),
    ]);
    expect(turn.ended).toBe(false);
    expect(turn.calls.map((c) => [c.callId, resumeStep(c).kind])).toEqual([
      ["done", "answer"],
      ["queued", "run"],
      ["reader", "run"],
      ["writer", "interrupted"],
      ["idem", "run"],
      ["asked", "run"],
      ["answered", "run"],
    ]);
    expect(resumeStep(turn.calls[0]!)).toMatchObject({ item: { output: "DONE" } });
    expect(turn.calls.find((c) => c.callId === "asked")?.awaitingApproval).toBe(true);
    expect(turn.calls.find((c) => c.callId === "answered")?.approval).toEqual({ decision: "allow" });
    expect(readTurn([accepted("a"), t({ type: "turn_end" })]).ended).toBe(true);
  });

  it("a redacted call that never finished is not run from what the redaction left", () => {
    const turn = readTurn([{ ...accepted("a"), redacted: true } as JournalRecord]);
    expect(resumeStep(turn.calls[0]!).kind).toBe("interrupted");
  });
});
