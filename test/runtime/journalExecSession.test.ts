// Exec sessions do not survive the host (DESIGN section 17): in a turn resumed in a new host, a
// `write_stdin` to a session the dead host ran is answered `interrupted`, not "unknown process".
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createToolRouter,
  createTurnContext,
  FileJournal,
  outputContent,
  ToolCallRuntime,
  type ToolRouter,
} from "../../src/index.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A host: a router with its own exec sessions, closed after the test. */
async function host(): Promise<ToolRouter> {
  const router = await createToolRouter({ shell: "unified_exec" });
  cleanup.push(() => router.close());
  return router;
}
const call = (callId: string, name: string, args: Record<string, unknown>) => ({
  type: "function_call",
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
});

describe("a resumed turn and the dead host's exec sessions", () => {
  it("write_stdin to a session the dead host ran is interrupted; an id no host gave out stays unknown", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "journal-exec-"));
    cleanup.push(async () => {
      rmSync(dir, { recursive: true, force: true });
    });
    const journal = new FileJournal(path.join(dir, "journal"));
    cleanup.push(() => journal.close());
    const turn = () => createTurnContext({ cwd: dir, journal });

    // The first host starts a session that outlives the call (the host "dies" with it running).
    const first = await host();
    const before = new ToolCallRuntime(first, turn(), { turnId: "t1" });
    before.submit(call("c1", "exec_command", { cmd: "cat", tty: true, yield_time_ms: 250 }));
    const [started] = await before.drain();
    const opened = outputContent(started!) as string;
    const id = Number(/Process running with session ID (\d+)/.exec(opened)?.[1]);
    expect(id).toBeGreaterThan(0);

    // A new host (its own sessions) resumes the turn; the model types into the old session.
    const second = await host();
    const resumed = await ToolCallRuntime.resume(second, turn(), { turnId: "t1" });
    resumed.submit(call("c2", "write_stdin", { session_id: id, chars: "ls\n" }));
    resumed.submit(call("c3", "write_stdin", { session_id: 999, chars: "" }));
    const outputs = (await resumed.drain()).map(outputContent);
    expect(outputs).toEqual([
      opened,
      `interrupted: exec_command session ${id} was running when the agent stopped; it may or may not have taken effect. Check before running it again.`,
      // Below the ids any host gives out (1000-99999): the model's mistake, said as before.
      "write_stdin failed: Unknown process id 999",
    ]);

    // A turn that was not resumed knows nothing of a dead host: the session is just unknown.
    const fresh = new ToolCallRuntime(second, turn(), { turnId: "t2" });
    fresh.submit(call("c4", "write_stdin", { session_id: id, chars: "" }));
    expect((await fresh.drain()).map(outputContent)).toEqual([`write_stdin failed: Unknown process id ${id}`]);
  });
});
