/**
 * The messages between the host and its spawner (spawner.ts, spawnerMain.ts), JSON over Node's
 * IPC channel. Types only: the spawner's bundle stays free of the library.
 */

/** host -> spawner: start `file` in a new session (process group) with these stdio entries. */
export interface SpawnRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdio: Array<"ignore" | "pipe">;
}

/** How a spawn failed, as the host rebuilds the error node's own spawn would have given. */
export interface SpawnFailure {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

/**
 * spawner -> host, per request, in this order: `started` (its pid, at once, so the host can kill
 * the group whatever happens next), one `pipe` per piped fd (the handle rides along), `ready`
 * (every handle acknowledged: a pipe still missing then never comes); later `exit`. Or `failed`
 * alone.
 */
export type SpawnerReply =
  | { id: number; kind: "started"; pid: number }
  | { id: number; kind: "pipe"; fd: number }
  | { id: number; kind: "ready" }
  | { id: number; kind: "exit"; code: number | null; signal: NodeJS.Signals | null }
  | { id: number; kind: "failed"; error: SpawnFailure };
