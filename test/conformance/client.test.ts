/**
 * The official MCP conformance suite's client scenarios against our McpConnectionManager
 * (driver: ./client.mjs, on the built dist/). The suite needs Node 22, which the npm `node` package gives this
 * folder; `npm test` installs both first (scripts/pretest.mjs).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const NODE22 = path.join(HERE, "node_modules/.bin/node");
const SUITE = path.join(HERE, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const DRIVER = `${process.execPath} ${path.join(HERE, "client.mjs")}`;

if (!existsSync(SUITE) || !existsSync(NODE22)) {
  throw new Error("test/conformance is not installed: `npm test` installs it (scripts/pretest.mjs)");
}
const listed = (await run(NODE22, [SUITE, "list"])).stdout;
const SCENARIOS = listed
  .slice(listed.indexOf("Client scenarios"))
  .split("\n")
  .flatMap((line) => /^\s+- (\S+)/.exec(line)?.[1] ?? []);

type Check = { id: string; status: string; errorMessage?: string };

let out: string;
beforeAll(async () => (out = await mkdtemp(path.join(tmpdir(), "toolcall-conformance-out-"))));
afterAll(() => rm(out, { recursive: true, force: true }));

async function checksOf(scenario: string): Promise<Check[]> {
  const dir = path.join(out, path.dirname(scenario));
  const name = path.basename(scenario);
  const found = (await readdir(dir)).find((d) => d.startsWith(`${name}-`));
  if (!found) throw new Error(`no results for ${scenario}`);
  return JSON.parse(await readFile(path.join(dir, found, "checks.json"), "utf8")) as Check[];
}

describe("MCP conformance suite, client scenarios", () => {
  it("lists every client scenario, auth/* included", () => {
    expect(SCENARIOS).toEqual(
      expect.arrayContaining(["initialize", "tools_call", "sse-retry", "auth/metadata-default"]),
    );
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(26);
  });

  it.each(SCENARIOS)(
    "%s",
    async (scenario) => {
      await run(NODE22, [SUITE, "client", "--command", DRIVER, "--scenario", scenario, "-o", out], {
        timeout: 90_000,
      }).catch((err: unknown) => err); // a failing scenario exits 1: its checks say why
      const failed = (await checksOf(scenario))
        .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
        .map((c) => `${c.id}: ${c.errorMessage ?? ""}`);
      expect(failed).toEqual([]);
    },
    100_000,
  );
});
