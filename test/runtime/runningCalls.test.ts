import { describe, expect, it } from "vitest";
import { RunningCalls, type RunningLinks } from "../../src/runtime/runningCalls.js";

class Member implements RunningLinks<Member> {
  prevRunning: Member | undefined;
  nextRunning: Member | undefined;
  constructor(readonly id: string) {}
}

const ids = (list: RunningCalls<Member>): string[] => [...list].map((m) => m.id);

describe("RunningCalls", () => {
  it("keeps joining order and lets members leave from the head, the middle and the tail", () => {
    const list = new RunningCalls<Member>();
    const [a, b, c, d] = ["a", "b", "c", "d"].map((id) => new Member(id)) as [Member, Member, Member, Member];
    for (const m of [a, b, c, d]) list.add(m);
    expect(ids(list)).toEqual(["a", "b", "c", "d"]);
    list.delete(b);
    expect(ids(list)).toEqual(["a", "c", "d"]);
    list.delete(a);
    expect(ids(list)).toEqual(["c", "d"]);
    list.delete(d);
    expect(ids(list)).toEqual(["c"]);
    list.add(a);
    expect(ids(list)).toEqual(["c", "a"]);
    list.delete(c);
    list.delete(a);
    expect(ids(list)).toEqual([]);
  });

  it("ignores a member that already left, or never joined", () => {
    const list = new RunningCalls<Member>();
    const a = new Member("a");
    const b = new Member("b");
    list.add(a);
    list.delete(b);
    list.delete(a);
    list.delete(a);
    expect(ids(list)).toEqual([]);
    list.add(b);
    expect(ids(list)).toEqual(["b"]);
  });
});
