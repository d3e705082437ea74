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

type RealtimeListener = (ev: RealtimeEvent) => void;

export const dmChannel = (userId: string) => `user:${userId}:dm`;

// Beyond the user's own key, the hub keeps two kinds of subscription key for the web pages' live
// stream (web/live-routes.ts, docs/decisions.md §170); user ids are bare UUIDs, so neither can
// collide with one, and the API's stream (GET /api/v1/stream) subscribes to the user's key only.

/** The key of a user's web-only events (the unread count), which the API's stream never carries. */
export const webKey = (userId: string) => `web:${userId}`;
export const notificationsChannel = (userId: string) => `user:${userId}:notifications`;
/** The key and channel of a post's public activity (a new visible comment), for the readers of the post. */
export const postTopic = (postId: string) => `post:${postId}`;

/** Told once when the server shuts down: the stream sends its last frame and ends. */
type CloseListener = () => void;

export class RealtimeHub {
  private listeners = new Map<string, Set<RealtimeListener>>();
  private closers = new Set<CloseListener>();
  private seq = 0;
  private closedFlag = false;

  constructor(private clock: Clock) {}

  /** Whether the server is shutting down: new streams end at once. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /**
   * Listens to one user's channels (or another key: `webKey`, `postTopic`); `onClose` is called
   * if the server shuts down while the subscription is open. Returns the unsubscribe function.
   */
  subscribe(userId: string, listener: RealtimeListener, onClose?: CloseListener): () => void {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(listener);
    if (onClose) this.closers.add(onClose);
    return () => {
      set.delete(listener);
      if (onClose) this.closers.delete(onClose);
      if (!set.size && this.listeners.get(userId) === set) this.listeners.delete(userId);
    };
  }

  /** Ends every open subscription (server shutdown); returns how many there were. */
  closeAll(): number {
    this.closedFlag = true;
    const closers = [...this.closers];
    this.closers.clear();
    for (const close of closers) {
      try {
        close();
      } catch {
        // One broken stream must not keep the others open.
      }
    }
    return closers.length;
  }

  /** Open streams: each stream (the API's, or a web page's over several keys) subscribes with one close listener. */
  get streams(): number {
    return this.closers.size;
  }

  /** Open subscriptions across all users. */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
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
