/**
 * Scenario: what a journal costs (DESIGN section 17). A 100-call batch of no-op calls and a
 * 100-call batch of `true` shell commands (the two batches), each with no journal and
 * with a FileJournal in a temp directory, interleaved: µs per call. Without a journal there is
 * nothing to pay (the `dispatch` scenario is the check); with one, each batch of outputs
 * settling together costs one write and one fdatasync.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FunctionCallItem, ToolRouter, TurnJournal } from "../../src/index.js";
import { lib } from "../lib/lib.js";
import { metric } from "../lib/report.js";
import { measure, medianOf, type Scenario } from "../lib/scenario.js";
import { meanOver } from "../lib/stats.js";
import { assertAllSucceeded, batch, benchRouter, functionCall, NO_LOOP_DETECTION } from "../lib/tools.js";

const NOOPS = 100;
/** The 100-call batch; the smoke run (`--quick`, 60 s on a busy machine) spawns 20. */
const COMMANDS = 100;
const QUICK_COMMANDS = 20;

async function turnOf(router: ToolRouter, items: readonly FunctionCallItem[], journal?: TurnJournal): Promise<void> {
  const runtime = new lib.ToolCallRuntime(router, lib.createTurnContext(journal ? { journal } : {}));
  for (const item of items) runtime.submit(item);
  assertAllSucceeded(await runtime.drainOutcomes(), items.length);
  await runtime.endTurn();
}

export const journal: Scenario = {
  id: "journal",
  title: `Journal: ${NOOPS} no-op calls and ${COMMANDS} \`true\` commands, without and with a FileJournal`,
  async run(ctx) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "bench-journal-"));
    const file = new lib.FileJournal(dir);
    try {
      const noopRouter = benchRouter();
      const shellRouter = await lib.createToolRouter({ ...NO_LOOP_DETECTION, shell: "shell" });
      const noops = batch("j", NOOPS, "noop", { n: 1 });
      const commands = ctx.quick ? QUICK_COMMANDS : COMMANDS;
      const trues = Array.from({ length: commands }, (_, i) => functionCall(`t${i}`, "shell", { command: ["true"] }));
      const minMs = ctx.quick ? 20 : 100;
      const perCall = (fn: () => Promise<void>, calls: number, rounds: number) => async (): Promise<number> =>
        (1000 * (await meanOver(fn, minMs, rounds))) / calls;
      const variants = await measure(
        [
          {
            id: "noop",
            label: `${NOOPS} no-op calls, no journal`,
            run: perCall(() => turnOf(noopRouter, noops), NOOPS, 10_000),
          },
          {
            id: "noopJournal",
            label: `${NOOPS} no-op calls, FileJournal`,
            run: perCall(() => turnOf(noopRouter, noops, file), NOOPS, 10_000),
          },
          {
            id: "true",
            label: `${commands} \`true\`, no journal`,
            run: perCall(() => turnOf(shellRouter, trues), commands, 5),
          },
          {
            id: "trueJournal",
            label: `${commands} \`true\`, FileJournal`,
            run: perCall(() => turnOf(shellRouter, trues, file), commands, 5),
          },
        ],
        ctx.reps,
        "µs/call",
      );
      await shellRouter.close();
      const m = (id: string) => medianOf(variants, id);
      return {
        status: "ok",
        note: `journal in ${os.tmpdir()}: one write + fdatasync per batch of outputs settling together`,
        variants,
        metrics: [
          metric("noopJournalUs", "no-op call with a FileJournal", m("noopJournal"), "µs/call"),
          metric("noopAddedUs", "added per no-op call", m("noopJournal") - m("noop"), "µs/call"),
          metric("trueJournalUs", "`true` with a FileJournal", m("trueJournal"), "µs/call"),
          metric("trueRatio", "`true` with / without a journal", m("trueJournal") / m("true"), "×"),
        ],
      };
    } finally {
      await file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
