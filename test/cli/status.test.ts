import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LiveStatus } from "../../src/cli/status.js";
import type { Timing } from "../../src/turn/events.js";

const timing: Timing = { queuedMs: 0, lockWaitMs: 0, gateWaitMs: 0, handlerMs: 0, totalMs: 0 };

function capture(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  let text = "";
  out.on("data", (c: Buffer) => (text += c.toString()));
  return { out, text: () => text };
}

describe("LiveStatus", () => {
  it("plain mode prints one line per state change; calls behind an exclusive one wait for the lock", () => {
    const { out, text } = capture();
    const status = new LiveStatus(out, false);
    status.add("c1", "c1 read_file", { exclusive: false });
    status.add("c2", "c2 apply_patch", { exclusive: true });
    status.add("c3", "c3 read_file", { exclusive: false });
    status.onEvent({ type: "tool_call_begin", callId: "c1", toolName: "read_file", payloadKind: "function" });
    status.onEvent({
      type: "tool_call_end",
      callId: "c1",
      toolName: "read_file",
      success: true,
      aborted: false,
      timing,
      tokens: 0,
    });
    status.onEvent({ type: "tool_call_begin", callId: "c2", toolName: "apply_patch", payloadKind: "custom" });
    status.onEvent({
      type: "tool_call_end",
      callId: "c2",
      toolName: "apply_patch",
      success: false,
      aborted: false,
      timing,
      tokens: 0,
    });
    status.stop();
    const states = text()
      .trim()
      .split("\n")
      .map((l) => /\] (c\d) .*?(queued|waiting for lock|running|done|failed)/.exec(l)?.slice(1, 3).join(" "));
    expect(states).toEqual([
      "c1 queued",
      "c2 waiting for lock",
      "c3 waiting for lock",
      "c1 running",
      "c1 done",
      "c2 running",
      "c2 failed",
    ]);
    expect(text()).not.toContain("\x1b[");
  });

  it("TTY mode redraws every row in place", () => {
    const { out, text } = capture();
    const status = new LiveStatus(out, true);
    status.add("c1", "c1 shell", { exclusive: false });
    status.add("c2", "c2 shell", { exclusive: false });
    status.onEvent({ type: "tool_call_begin", callId: "c2", toolName: "shell", payloadKind: "function" });
    status.stop();
    // First draw, then each redraw moves the cursor up over the rows drawn before.
    expect([...text().matchAll(/\x1b\[(\d+)A/g)].map((m) => m[1])).toEqual(["1", "2", "2"]);
    const last = text()
      .split(/\x1b\[\d+A/)
      .at(-1) as string;
    expect(last.match(/\x1b\[2K/g)).toHaveLength(2);
    expect(last).toMatch(/c1 shell\s+shared\s+queued/);
    expect(last).toMatch(/c2 shell\s+shared\s+running/);
  });

  it("TTY mode fits every row to a narrow terminal, so redraws never drift", () => {
    const { out, text } = capture();
    Object.assign(out, { columns: 40 });
    const status = new LiveStatus(out, true);
    status.add("c1", "c1 shell: cargo build --release --all-features --workspace", { exclusive: true });
    status.add("c2", "c2 read_file src/very/long/path/to/a/module.rs", { exclusive: false });
    status.onEvent({ type: "tool_call_begin", callId: "c1", toolName: "shell", payloadKind: "function" });
    status.onEvent({
      type: "tool_call_end",
      callId: "c1",
      toolName: "shell",
      success: true,
      aborted: false,
      timing,
      tokens: 0,
    });
    status.note("approve? something\n");
    status.stop();
    const rows = text()
      .split(/\x1b\[\d+A|\x1b\[0J/)
      .flatMap((chunk) => chunk.split("\n"))
      .map((row) => row.replaceAll("\x1b[2K", ""))
      .filter((row) => row !== "");
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(row.length, row).toBeLessThanOrEqual(39); // ASCII and one …
    const last = text()
      .split(/\x1b\[\d+A/)
      .at(-1) as string;
    expect(last).toMatch(/^\x1b\[2Kc1 shel… exclusive done\s+wa…\n/);
    expect(last).toMatch(/\x1b\[2Kc2 read… shared\s+waiting for lock fo…\n$/);
  });
});
