import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** What a peer adapter (bench/peers/*.ts, loaded only when the peer packages are installed) provides. */

export type BatchKind = "noop" | "wait";

export interface BatchSpec {
  kind: BatchKind;
  count: number;
  waitMs: number;
}

export interface PeerAdapter {
  id: string;
  label: string;
  /** Package and version, for the results file. */
  version: string;
  /** Anything the reader should know (extra model turns, caveats). */
  note?: string;
  /**
   * Builds a function that runs one batch of `spec.count` tool calls emitted by a scripted
   * model and resolves when the framework has every result. It rejects when a call did not
   * run, so a misconfigured peer cannot look fast.
   */
  prepare(spec: BatchSpec): Promise<() => Promise<void>>;
}

/** Counts tool executions per batch so adapters can prove every call ran. */
export class ExecutionCounter {
  count = 0;

  expect(n: number, peer: string): void {
    const seen = this.count;
    this.count = 0;
    if (seen !== n) throw new Error(`${peer}: expected ${n} tool executions, saw ${seen}`);
  }
}

/** `name version` of a package in bench/node_modules (read from disk: some packages do not export package.json). */
export function peerVersion(name: string): string {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "node_modules", name, "package.json");
  const pkg = JSON.parse(readFileSync(file, "utf8")) as { version: string; engines?: { node?: string } };
  return `${name} ${pkg.version}${pkg.engines?.node ? ` (node ${pkg.engines.node})` : ""}`;
}
