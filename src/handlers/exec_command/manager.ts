import { ExecSession } from "./session.js";
import type { SpawnedProcess } from "../../protocol/index.js";
import type { SpillStore } from "../../turn/index.js";
import type { ExecCommandArgs } from "./execCommandHandler.js";

const DEFAULT_MAX_EXEC_SESSIONS = 64;
/** Session ids are random in [FIRST_ID, FIRST_ID + ID_SPAN) (Codex's are random, 4-5 digits). */
const FIRST_ID = 1000;
const ID_SPAN = 99_000;

/**
 * The exec sessions of one router (the agent's session): they outlive a turn, are capped (the
 * least recently used closed first, exited ones before running ones), and all die on `close`.
 */
export class ExecSessionManager {
  private readonly sessions = new Map<number, ExecSession>();
  /** Every id this manager gave out (at most ID_SPAN): a session it never had was another host's. */
  private readonly issued = new Set<number>();
  private closed = false;

  constructor(
    readonly maxSessions = DEFAULT_MAX_EXEC_SESSIONS,
    /** `ToolsConfig.spillDir`: chunks the model sees cut are kept whole there. */
    private readonly spill?: SpillStore,
  ) {
    if (!Number.isInteger(maxSessions) || maxSessions < 1)
      throw new RangeError(`maxExecSessions must be a positive integer, got ${String(maxSessions)}`);
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: number): ExecSession | undefined {
    return this.sessions.get(id);
  }

  /** An id a manager could give out that this one never did: another host's session, if any. */
  notIssuedHere(id: number): boolean {
    return Number.isInteger(id) && id >= FIRST_ID && id < FIRST_ID + ID_SPAN && !this.issued.has(id);
  }

  /** Keeps a started process as a session under a fresh id. */
  add(proc: SpawnedProcess, { tty, launched }: { tty: boolean; launched?: ExecCommandArgs | undefined }): ExecSession {
    if (this.closed) {
      void proc.terminate(0).then(() => proc.dispose());
      throw new Error("exec sessions are closed");
    }
    let id: number;
    do id = FIRST_ID + Math.floor(Math.random() * ID_SPAN);
    while (this.sessions.has(id));
    const session = new ExecSession(id, proc, tty, this.spill, launched);
    this.sessions.set(id, session);
    this.issued.add(id);
    this.prune();
    return session;
  }

  /** Forgets a session (its process has exited or was killed). */
  remove(session: ExecSession): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }

  /** Kills a session's process and forgets it. */
  async kill(session: ExecSession): Promise<void> {
    this.remove(session);
    await session.kill();
  }

  private prune(): void {
    while (this.sessions.size > this.maxSessions) {
      let victim: ExecSession | undefined;
      for (const s of this.sessions.values()) {
        if (
          !victim ||
          Number(s.exited) > Number(victim.exited) ||
          (s.exited === victim.exited && s.lastUsed < victim.lastUsed)
        )
          victim = s;
      }
      if (!victim) return;
      void this.kill(victim);
    }
  }

  /** Kills every session; later `add`s are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions.values()].map((s) => this.kill(s)));
  }
}
