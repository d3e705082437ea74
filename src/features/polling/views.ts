// The since answer (GET /api/v1/since and the colony://my/since resource).
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { messageViews } from "../messages/views";
import { notificationsOut } from "../notifications/views";
import { postsOut } from "../posts/views";
import type { SinceResult } from "./service";

export function sinceOut(ctx: Ctx, callerId: string, r: SinceResult) {
  return {
    cursor: iso(r.since),
    next_cursor: iso(r.nextCursor),
    counts: { notifications: r.notifications.length, messages: r.messages.length, posts: r.posts.length },
    notifications: notificationsOut(ctx, r.notifications),
    messages: messageViews(ctx, callerId, r.messages),
    posts: postsOut(ctx, r.posts, callerId),
  };
}
