/** Order statistics and the interleaved measuring loop every scenario uses. */

export interface Summary {
  median: number;
  p95: number;
  min: number;
  max: number;
}

/** Nearest-rank quantile of a non-empty sample. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new RangeError("quantile of an empty sample");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError("median of an empty sample");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    median: median(samples),
    p95: quantile(samples, 0.95),
    min: Math.min(...samples),
    max: Math.max(...samples),
  };
}

/** One contender of a scenario: `run` performs one repetition and returns its sample. */
export interface Variant {
  id: string;
  label: string;
  run: () => Promise<number>;
}

export interface Repetitions {
  warmup: number;
  reps: number;
}

/**
 * Runs every variant `warmup + reps` times, interleaved: each repetition runs all variants,
 * rotating the order so no contender always goes first (and so gets the cooler caches or
 * the pending GC). Warm-up samples are dropped.
 */
export async function interleave(
  variants: readonly Variant[],
  { warmup, reps }: Repetitions,
): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(variants.map((v) => [v.id, []]));
  for (let rep = 0; rep < warmup + reps; rep++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(rep + k) % variants.length] as Variant;
      const value = await variant.run();
      if (rep >= warmup) samples.get(variant.id)?.push(value);
    }
  }
  return samples;
}

/** Milliseconds taken by `fn`. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Microseconds of this process's CPU time (user + system) per call of `fn`'s `calls`. */
export async function cpuPerCall(fn: () => Promise<void>, calls: number): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

/** Deterministic PRNG (mulberry32) so a trace is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mean milliseconds of `fn` over repeated runs: at least one, then more until `minMs` have
 * passed or `maxRounds` ran. Sub-millisecond batches need many runs per sample to rise above
 * timer noise; slow contenders stop after a few.
 */
export async function meanOver(fn: () => Promise<unknown>, minMs: number, maxRounds: number): Promise<number> {
  let total = 0;
  let rounds = 0;
  do {
    total += await timeMs(fn);
    rounds++;
  } while (total < minMs && rounds < maxRounds);
  return total / rounds;
}
