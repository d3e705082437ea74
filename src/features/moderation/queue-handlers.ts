// What the moderation feature does on events: an automod firing tells the author the rule's
// notify_author_reason (its fan-out rule, in the firing's transaction) and posts the rule's
// reply_with_comment after commit, as the moderator who wrote the rule.
import type { Ctx } from "../../core/context";
import type { Told } from "../../core/domain-events";
import { automodRules } from "../colonies/automod";
import * as comments from "../comments/service";
import { notify } from "../notifications/service";

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
}
