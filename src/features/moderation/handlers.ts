// What the moderation feature does on events, registered by `register(ctx)` (app.ts):
// - an automod firing tells the author the rule's notify_author_reason (its fan-out rule, in the
//   firing's transaction) and posts the rule's reply_with_comment after commit, as the moderator
//   who wrote the rule;
// - after commit, every group message in a modmail thread marks the thread active;
// - in the transaction of a moderator exit (colonies/moderator-exits.ts: demoted, removed, banned,
//   left the colony), the former moderator leaves the colony's modmail threads.
import type { Ctx } from "../../core/context";
import type { Told } from "../../core/domain-events";
import { onModeratorExit } from "../colonies/moderator-exits";
import * as comments from "../comments/service";
import { notify } from "../notifications/service";
import { automodRules } from "./automod-rules";
import { leaveThreadsOnExit, touchThread } from "./modmail";

export function register(ctx: Ctx): void {
  ctx.events.fanOut("automod_fired", (ev): Told[] => {
    const p = ev.payload;
    if (!p.notify_author_reason) return [];
    const row = notify(ctx, {
      userId: p.author_id,
      kind: "automod_action",
      target: { type: p.target_type, id: p.target_id },
      postId: p.post_id,
      commentId: p.target_type === "comment" ? p.target_id : null,
      meta: { colony_id: p.colony_id, rule_name: p.rule_name, reason: p.notify_author_reason, removed: p.removed },
      eventId: ev.id,
    });
    return row ? [{ user_id: p.author_id, kind: "automod_action" }] : [];
  });
  ctx.events.on("automod_fired", (ev) => {
    const p = ev.payload;
    if (!p.reply_with_comment) return;
    const rule = automodRules(ctx, p.colony_id).find((r) => r.id === p.rule_id);
    if (!rule?.createdBy) return;
    comments.postAutomodReply(ctx, rule.createdBy, p.post_id, p.target_type === "comment" ? p.target_id : null, p.reply_with_comment, ev.id);
  });
  // A message in a modmail thread (from either side) moves it up the moderators' list.
  ctx.events.on("group_message", (ev) => touchThread(ctx, ev.payload.conversation_id, ev.createdAt));
  // Someone who stops moderating a colony stops reading its modmail.
  onModeratorExit(ctx, (tx, exit) => void leaveThreadsOnExit(ctx, tx, exit.colonyId, exit.userId));
}
