import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take minutes (each is one long test: a crash loop, the official conformance
 * suite, the bench smoke run, a second Docker engine, the evasion table, the README's examples).
 * Started first, they overlap the hundreds of short files instead of running alone at the end:
 * on a loaded machine the suite's wall time is the last file's, and vitest on a fresh clone
 * (no timing cache) would order them by size.
 */
const LONGEST = [
  "test/runtime/journalCrash.test.ts",
  "test/conformance/client.test.ts",
  "test/bench/quick.test.ts",
  "test/sandbox/dockerRemote.test.ts",
  "test/policy/evasions.test.ts",
  "test/readme.test.ts",
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const at = LONGEST.indexOf(path.relative(f.project.config.root, f.moduleId).split(path.sep).join("/"));
      return at < 0 ? LONGEST.length : at;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
