/**
 * The turn timeline (#14 item 7): `toolcall exec --timeline FILE.svg` draws every call on one
 * time axis, shared and exclusive runs told apart; the demo prints the same as text.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { timelineSvg, timelineText, type TimelineCall } from "../../src/cli/timeline.js";
import { jsonLines, runCli, withTempDir } from "./helpers.js";

function fn(callId: string, name: string, args: unknown): string {
  return JSON.stringify({ type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) });
}

/** The running bars of an SVG: each call's `<title>` text, in order. */
const runs = (svg: string): string[] => [...svg.matchAll(/<title>([^<]*ran[^<]*)<\/title>/g)].map((m) => m[1] ?? "");

describe("toolcall exec --timeline", () => {
  it("writes an SVG with each call's wait and run; the exclusive call runs alone after the shared ones", async () => {
    await withTempDir(async (dir) => {
      const svgFile = path.join(dir, "turn.svg");
      const input = [
        fn("s1", "shell", { command: ["sleep", "0.2"] }),
        fn("s2", "shell", { command: ["sleep", "0.2"] }),
        fn("plan", "update_plan", { plan: [{ step: "a", status: "pending" }] }),
        fn("s1", "update_plan", { plan: [] }), // a duplicate id: rejected, not drawn
      ].join("\n");
      const result = await runCli(["exec", "--sandbox", "danger-full-access", "--timeline", svgFile], {
        cwd: dir,
        input: `${input}\n`,
      });
      expect(result.code).toBe(0);
      expect(jsonLines(result.stdout).map((o) => o["call_id"])).toEqual(["s1", "s2", "plan"]);
      const svg = await readFile(svgFile, "utf8");
      expect(svg.startsWith("<svg")).toBe(true);
      expect(svg).toContain("toolcall exec: 3 calls");
      expect(runs(svg)).toEqual([
        expect.stringMatching(/^s1 shared, ran /),
        expect.stringMatching(/^s2 shared, ran /),
        expect.stringMatching(/^plan exclusive, ran /),
      ]);
      // Bars are placed in time: the exclusive call's bar starts after both shared ones end.
      const bars = [
        ...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*><title>(\S+) (shared|exclusive), ran/g),
      ];
      const span = (id: string): [number, number] => {
        const m = bars.find((b) => b[3] === id);
        return [Number(m?.[1]), Number(m?.[1]) + Number(m?.[2])];
      };
      expect(span("plan")[0]).toBeGreaterThanOrEqual(Math.max(span("s1")[1], span("s2")[1]) - 1);
      expect(span("s2")[0]).toBeLessThan(span("s1")[1]); // the two shared calls overlapped
    });
  });

  it("says so and exits 1 when the file cannot be written; the outputs are still printed", async () => {
    await withTempDir(async (dir) => {
      const result = await runCli(["exec", "--timeline", path.join(dir, "missing", "t.svg")], {
        cwd: dir,
        input: `${fn("p", "update_plan", { plan: [] })}\n`,
      });
      expect(result.code).toBe(1);
      expect(jsonLines(result.stdout)).toHaveLength(1);
      expect(result.stderr).toMatch(/--timeline: cannot write .*t\.svg/);
    });
  });
});

describe("timeline pictures", () => {
  const call = (
    id: string,
    submittedAt: number,
    beganAt?: number,
    endedAt?: number,
    extra: Partial<TimelineCall> = {},
  ) => ({
    callId: id,
    label: id,
    exclusive: false,
    submittedAt,
    ...(beganAt !== undefined && { beganAt }),
    ...(endedAt !== undefined && { endedAt }),
    ...extra,
  });

  it("text: waiting dots, shared and exclusive runs, a refused call's cross", () => {
    const text = timelineText(
      [call("a", 0, 0, 50), call("b", 0, 50, 100, { exclusive: true }), call("c", 0, undefined, 100, { failed: true })],
      44,
    );
    const [a, b, c] = text.split("\n");
    expect(a).toMatch(/^ {2}a +█+$/);
    expect(b).toMatch(/^ {2}b +·+▓+$/);
    expect(c).toMatch(/^ {2}c +·+✗$/);
  });

  it("svg: past 40 calls, calls that do not overlap share a lane", () => {
    // 60 calls one after another: one lane is enough.
    const calls = Array.from({ length: 60 }, (_, i) => call(`c${i}`, i * 10, i * 10, i * 10 + 5));
    const svg = timelineSvg(calls);
    const ys = new Set([...svg.matchAll(/<rect x="[\d.]+" y="([\d.]+)"[^>]*><title>c\d+ shared/g)].map((m) => m[1]));
    expect(ys.size).toBe(1);
  });
});
