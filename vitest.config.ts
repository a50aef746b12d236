import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/support/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Ceilings, not targets: a healthy test ends in seconds; these only stop a hung one. Tests
    // wait on events (test/support/setup.ts), so load makes them slower, never red.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Most files wait on child processes, servers and sockets, not on the CPU: four at once keep
    // a 2-core machine busy (two left it half idle: 708 s against 465 s at load 10), and on a
    // machine shared with CPU hogs they hold a fairer share of it.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/setup.ts"],
  },
});
