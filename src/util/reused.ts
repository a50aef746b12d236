import { now } from "./clock.js";

/**
 * `compute` per key, its answer reused for `ms`: for what the host reads of the file system on
 * every spawn (a workspace walk, the host's sockets) and may see a moment late.
 */
export function reusedFor<T>(ms: number, compute: (key: string) => T): (key: string) => T {
  const recent = new Map<string, { at: number; value: T }>();
  return (key) => {
    const hit = recent.get(key);
    const t = now();
    if (hit !== undefined && t - hit.at < ms) return hit.value;
    const value = compute(key);
    // Keys are few (a host's sets of roots); a host that keeps inventing them starts over.
    if (recent.size >= 64) recent.clear();
    recent.set(key, { at: t, value });
    return value;
  };
}
