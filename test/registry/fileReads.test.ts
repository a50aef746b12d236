import { rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileReadLedger } from "../../src/subpaths/handlers.js";
import { localFileOps } from "../../src/sandbox/index.js";
import { useTempDir } from "../handlers/toolHarness.js";

let dir: string;
useTempDir((d) => (dir = d));

async function seen(ledger: FileReadLedger, path: string) {
  const snapshot = await ledger.snapshot(localFileOps, path);
  if (!snapshot) throw new Error("no snapshot");
  return snapshot;
}

describe("FileReadLedger", () => {
  it("hashes a file whose timestamps are recent, and trusts the hash when the stat is unchanged", async () => {
    const p = join(dir, "a.txt");
    await writeFile(p, "abc\n");
    const ledger = new FileReadLedger();
    const snapshot = await seen(ledger, p);
    expect(snapshot.seen.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Same stat, other contents (what a write in the same clock tick looks like): changed.
    ledger.remember({ real: snapshot.real, seen: { ...snapshot.seen, sha256: "0".repeat(64) } });
    await expect(ledger.check(localFileOps, p, "a.txt")).rejects.toThrow("a.txt changed since it was read");
    ledger.remember(snapshot);
    await expect(ledger.check(localFileOps, p, "a.txt")).resolves.toBeUndefined();
  });

  it("refuses what it never saw, a replaced file and a deleted one, naming the path as given", async () => {
    const p = join(dir, "b.txt");
    await writeFile(p, "one\n");
    const ledger = new FileReadLedger();
    await expect(ledger.check(localFileOps, p, "shown/b.txt")).rejects.toThrow("read shown/b.txt before changing it");
    ledger.remember(await seen(ledger, p));
    // Another inode with the same contents (an editor's save-by-rename) is another file state.
    await writeFile(join(dir, "b.tmp"), "one\n");
    await rename(join(dir, "b.tmp"), p);
    await expect(ledger.check(localFileOps, p, "b.txt")).rejects.toThrow("b.txt changed since it was read");
    await ledger.recordWrite(localFileOps, p);
    await expect(ledger.check(localFileOps, p, "b.txt")).resolves.toBeUndefined();
    await unlink(p);
    await expect(ledger.check(localFileOps, p, "b.txt")).rejects.toThrow("b.txt changed since it was read");
  });

  it("has no snapshot of a missing file or a directory", async () => {
    const ledger = new FileReadLedger();
    expect(await ledger.snapshot(localFileOps, join(dir, "missing"))).toBeUndefined();
    expect(await ledger.snapshot(localFileOps, dir)).toBeUndefined();
  });
});
