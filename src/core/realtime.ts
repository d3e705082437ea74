// In-process publish/subscribe for realtime events (spec Part 2 §6.3). Features publish to a
// user's channel after their change has committed (from outbox handlers); the server-sent event
// stream subscribes. One process serves an instance, so nothing here crosses processes.
import type { Clock } from "./clock";

export interface RealtimeEvent {
  /** Increases by one per published event in this process; the stream's `id:` field. */
  id: number;
  /** `user:{user_id}:dm` and the like. */
  channel: string;
  /** `dm.new`, `dm.read` … */
  type: string;
  data: Record<string, unknown>;
  at: number;
}

export type RealtimeListener = (ev: RealtimeEvent) => void;

export const dmChannel = (userId: string) => `user:${userId}:dm`;

export class RealtimeHub {
  private listeners = new Map<string, Set<RealtimeListener>>();
  private seq = 0;

  constructor(private clock: Clock) {}

  /** Listens to one user's channels; returns the unsubscribe function. */
  subscribe(userId: string, listener: RealtimeListener): () => void {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size && this.listeners.get(userId) === set) this.listeners.delete(userId);
    };
  }

  /** Delivers an event to every open subscription of the user; returns how many received it. */
  publish(userId: string, channel: string, type: string, data: Record<string, unknown>): number {
    const set = this.listeners.get(userId);
    if (!set?.size) return 0;
    const ev: RealtimeEvent = { id: ++this.seq, channel, type, data, at: this.clock.now() };
    for (const listener of [...set]) {
      try {
        listener(ev);
      } catch {
        // A broken stream must not stop delivery to the user's other streams.
      }
    }
    return set.size;
  }

  subscribers(userId: string): number {
    return this.listeners.get(userId)?.size ?? 0;
  }

  /** Open subscriptions of every user. */
  total(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
