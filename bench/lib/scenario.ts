/** What a scenario module provides and receives. */
import type { Metric, ScenarioStatus, VariantResult } from "./report.js";
import { interleave, summarize, type Repetitions, type Variant } from "./stats.js";

export interface ScenarioContext {
  quick: boolean;
  reps: Repetitions;
  /** Progress to stderr; stdout carries the result. */
  log: (message: string) => void;
}

export interface ScenarioOutput {
  status: ScenarioStatus;
  note?: string;
  variants: VariantResult[];
  metrics: Metric[];
}

export interface Scenario {
  id: string;
  title: string;
  run(ctx: ScenarioContext): Promise<ScenarioOutput>;
}

function variantResult(id: string, label: string, unit: string, samples: number[]): VariantResult {
  return { id, label, unit, samples, ...summarize(samples) };
}

export function skipped(note: string): ScenarioOutput {
  return { status: "skipped", note, variants: [], metrics: [] };
}

/** Looks up a variant's median; a scenario asking for one it did not measure is a bug. */
export function medianOf(variants: readonly VariantResult[], id: string): number {
  const v = variants.find((x) => x.id === id);
  if (!v) throw new Error(`no variant ${id}`);
  return v.median;
}

/** Runs the variants interleaved and summarizes each under its own label. */
export async function measure(variants: readonly Variant[], reps: Repetitions, unit: string): Promise<VariantResult[]> {
  const samples = await interleave(variants, reps);
  return variants.map((v) => variantResult(v.id, v.label, unit, samples.get(v.id) ?? []));
}
