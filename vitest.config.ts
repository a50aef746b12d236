import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Real child processes and servers: keep the 2-core CI machine from oversubscribing.
    maxWorkers: 2,
  },
});
