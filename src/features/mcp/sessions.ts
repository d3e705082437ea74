// The MCP sessions this process holds: each `Mcp-Session-Id` names a transport and the McpServer
// connected to it, in memory. What a session is lives in the database (session-rows.ts), which
// decides whether it is still open; this store is each serving process's copy of the sessions it
// has served, rebuilt from the row when a request names one it does not hold. Bounded and
// expiring (docs/decisions.md §49): a session unused for `idleMs` is over, and when `max` sessions
// are open the least recently used one is closed to make room. Time comes from the context's
// clock, so tests move a TestClock instead of waiting.
import type { Clock } from "../../core/clock";
import { MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";

/** A session is over after this long without a request. */
export const MCP_SESSION_IDLE_MS = 30 * MINUTE;
/** At most this many sessions are open at once; a new one closes the least recently used. */
export const MCP_SESSIONS_MAX = 1000;

interface Closable {
  close(): Promise<void>;
}

interface Entry<S extends Closable> {
  session: S;
  lastSeen: number;
}

export class SessionStore<S extends Closable> {
  /** In least-recently-used order: a touched entry moves to the end. */
  private entries = new Map<string, Entry<S>>();

  constructor(
    private clock: Clock,
    readonly idleMs = MCP_SESSION_IDLE_MS,
    readonly max = MCP_SESSIONS_MAX,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The live session `id` names, marked as used now; undefined when unknown or expired (then closed). */
  get(id: string): S | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    const now = this.clock.now();
    if (now - e.lastSeen >= this.idleMs) {
      this.drop(id, e);
      return undefined;
    }
    e.lastSeen = now;
    this.entries.delete(id);
    this.entries.set(id, e);
    return e.session;
  }

  /** Keeps a new session, closing the least recently used one when the store is full. */
  add(id: string, session: S): void {
    this.sweep();
    while (this.entries.size >= this.max) {
      const [oldest, e] = this.entries.entries().next().value as [string, Entry<S>];
      this.drop(oldest, e);
    }
    this.entries.set(id, { session, lastSeen: this.clock.now() });
  }

  /** Forgets a session that ended by itself (DELETE, or its transport closed). */
  forget(id: string): void {
    this.entries.delete(id);
  }

  /** Closes and forgets the session `id` if held here (it ended in another process, or expired there). */
  end(id: string): void {
    const e = this.entries.get(id);
    if (e) this.drop(id, e);
  }

  /** Closes every expired session (oldest first; stops at the first live one). */
  sweep(): number {
    const now = this.clock.now();
    let n = 0;
    for (const [id, e] of this.entries) {
      if (now - e.lastSeen < this.idleMs) break;
      this.drop(id, e);
      n++;
    }
    return n;
  }

  /** Closes every session (shutdown, tests). */
  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(all.map((e) => e.session.close()));
  }

  private drop(id: string, e: Entry<S>): void {
    this.entries.delete(id);
    e.session.close().catch(() => {});
  }
}

const stores = new WeakMap<Ctx, SessionStore<Closable>>();

/** The sessions of the app built on `ctx` (kept here, apart from the SDK, so the sweep job does not load it). */
export function sessionsOf<S extends Closable>(ctx: Ctx): SessionStore<S> {
  let s = stores.get(ctx) as SessionStore<S> | undefined;
  if (!s) stores.set(ctx, (s = new SessionStore<S>(ctx.clock)) as unknown as SessionStore<Closable>);
  return s;
}
