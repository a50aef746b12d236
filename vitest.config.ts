import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/support/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Ceilings, not targets: a healthy test ends in seconds; these only stop a hung one. Tests
    // wait on events (test/support/setup.ts), so load makes them slower, never red.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Real child processes and servers: keep the 2-core CI machine from oversubscribing.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/setup.ts"],
  },
});
