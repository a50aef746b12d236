import { readFileSync } from "node:fs";
import os from "node:os";
import { processAlive } from "./groups.js";

/**
 * Which process on which machine boot: a pid alone is reused, so a label naming a host process
 * (a container's `toolcall.pid`) also carries the boot and the process's start time.
 */
export interface ProcessIdentity {
  pid: number;
  /** The kernel's boot id (`/proc/sys/kernel/random/boot_id`); the host name where there is none. */
  boot: string;
  /** Start time in clock ticks since boot (`/proc/{pid}/stat` field 22); "" where there is no /proc. */
  start: string;
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return `host:${os.hostname()}`;
  }
}

/** A process's start time in clock ticks since boot (`/proc/{pid}/stat` field 22); undefined without /proc or once it is gone. */
export function startTime(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after `pid (comm) `: state is the 3rd field, starttime the 22nd.
    return text.slice(text.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

let own: ProcessIdentity | undefined;

/** This process's identity. */
export function ownIdentity(): ProcessIdentity {
  own ??= { pid: process.pid, boot: bootId(), start: startTime(process.pid) ?? "" };
  return own;
}

/**
 * Is the process `id` names known to be gone? Only for this machine's current boot: a process of
 * another machine or boot (a remote engine's other clients) cannot be judged, so never "dead".
 */
export function identityDead(id: ProcessIdentity): boolean {
  const me = ownIdentity();
  if (id.boot !== me.boot || !Number.isInteger(id.pid) || id.pid <= 0) return false;
  if (!processAlive(id.pid)) return true;
  // Alive, but a reused pid is another process.
  return id.start !== "" && me.start !== "" && startTime(id.pid) !== id.start;
}
