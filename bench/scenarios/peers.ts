/**
 * Scenario 6: the 100-call batches of scenario 2 through peer tool runtimes, next to ours and
 * the bare `Promise.all`, interleaved in one process.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { metric, type Metric } from "../lib/report.js";
import { measure, medianOf, skipped, type Scenario } from "../lib/scenario.js";
import type { BatchKind, PeerAdapter } from "../lib/peer.js";
import { meanOver, type Variant } from "../lib/stats.js";
import { bareBatch, batch, benchRouter, benchRuntime, noop, runBatch, wait } from "../lib/tools.js";
import { BATCH, BATCH_CONCURRENCY } from "./parallel.js";

const WAIT_MS = 20;
const PEER_MODULES = ["vercel-ai", "langgraph", "openai-agents"];
const PEERS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "peers");

/** Loads each adapter; a peer that cannot load on this Node is reported, not fatal. */
async function loadPeers(): Promise<{ peers: PeerAdapter[]; problems: string[] }> {
  const peers: PeerAdapter[] = [];
  const problems: string[] = [];
  for (const name of PEER_MODULES) {
    try {
      // A computed specifier keeps the root typecheck independent of bench/node_modules.
      const mod = (await import(pathToFileURL(path.join(PEERS_DIR, `${name}.ts`)).href)) as { peer: PeerAdapter };
      peers.push(mod.peer);
    } catch (err) {
      problems.push(
        `${name} not run on Node ${process.version}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
      );
    }
  }
  return { peers, problems };
}

export const peers: Scenario = {
  id: "peers",
  title: `Peers: ${BATCH}-call batches (no-op, ${WAIT_MS} ms) through peer runtimes`,
  async run(ctx) {
    if (!existsSync(path.join(PEERS_DIR, "..", "node_modules"))) {
      return skipped("peer packages not installed (npm ci --prefix bench)");
    }
    const { peers: adapters, problems } = await loadPeers();
    const router = benchRouter();
    // No-op samples average batches for at least this long; a 20 ms batch is one sample.
    const sampleMs = { noop: ctx.quick ? 20 : 100, wait: 0 };
    const args = { noop: { n: 1 }, wait: { ms: WAIT_MS } };
    const fns = { noop, wait };

    const variantsFor = async (kind: BatchKind): Promise<Variant[]> => {
      const items = batch(kind[0] as string, BATCH, kind, args[kind]);
      const repeat = (fn: () => Promise<void>) => (): Promise<number> => meanOver(fn, sampleMs[kind], 1000);
      const list: Variant[] = [
        { id: `bare.${kind}`, label: `bare Promise.all, ${kind}`, run: repeat(() => bareBatch(items, fns[kind])) },
        {
          id: `ours.${kind}`,
          label: `toolcall-runtime, ${kind}`,
          run: repeat(() => runBatch(benchRuntime(router, BATCH_CONCURRENCY), items)),
        },
      ];
      for (const peer of adapters) {
        try {
          const runOnce = await peer.prepare({ kind, count: BATCH, waitMs: WAIT_MS });
          await runOnce(); // fails fast, before the measured loop, if the peer does not work here
          list.push({ id: `${peer.id}.${kind}`, label: `${peer.label}, ${kind}`, run: repeat(runOnce) });
        } catch (err) {
          problems.push(
            `${peer.id} ${kind} batch failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
          );
        }
      }
      return list;
    };

    const variants = [
      ...(await measure(await variantsFor("noop"), ctx.reps, "ms/batch")),
      ...(await measure(await variantsFor("wait"), ctx.reps, "ms/batch")),
    ];
    const metrics: Metric[] = [];
    for (const kind of ["noop", "wait"] as const) {
      const bare = medianOf(variants, `bare.${kind}`);
      const overheadUs = (id: string): number => ((medianOf(variants, id) - bare) * 1000) / BATCH;
      const ours = overheadUs(`ours.${kind}`);
      metrics.push(metric(`ours.${kind}.overheadUs`, `toolcall-runtime overhead, ${kind}`, ours, "µs/call"));
      for (const peer of adapters) {
        if (!variants.some((v) => v.id === `${peer.id}.${kind}`)) continue;
        const theirs = overheadUs(`${peer.id}.${kind}`);
        metrics.push(metric(`${peer.id}.${kind}.overheadUs`, `${peer.label} overhead, ${kind}`, theirs, "µs/call"));
        metrics.push(
          metric(`${peer.id}.${kind}.overheadRatio`, `${peer.label} overhead / ours, ${kind}`, theirs / ours, "×", {
            op: ">=",
            value: 20,
            description: `at least 20× less per-call overhead than ${peer.label} (${kind} batch)`,
          }),
        );
      }
    }
    const versions = adapters.map((p) => `${p.version}: ${p.note ?? ""}`);
    return {
      status: "ok",
      note: [...versions, ...problems].join("; "),
      variants,
      metrics,
    };
  },
};
