// Move-out (spec Part 2 §4.2, §8; docs/decisions.md §37): a moderator holding can_remove files a
// post that is fine but in the wrong place under the general colony. Not a deletion: the post
// keeps its comments, score and karma, and its author is told where it went. Refused for a
// private colony's post (moving it would disclose it) and for a post already in general (posts
// always belong to a colony, so there is nowhere further out).
import type { Ctx } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import type { Caller } from "../auth/service";
import { recordModAction } from "../colonies/audit";
import { requireModPower } from "../colonies/permissions";
import * as colonies from "../colonies/service";
import { setPostCommentsColony } from "../comments/service";
import * as posts from "../posts/service";

const GENERAL_COLONY = "general";

interface MoveOutResult {
  post_id: string;
  from_colony_id: string;
  to_colony_id: string | null;
  moved: boolean;
}

/**
 * POST /colonies/{id}/posts/{post}/move-out. 404 when the colony is unreadable or the post is not
 * a live post of it; 403 FORBIDDEN without can_remove; 400 INVALID_INPUT for a private colony or
 * a post already in general.
 */
export function moveOut(ctx: Ctx, caller: Caller, colonyId: string, postId: string): MoveOutResult {
  const from = colonies.getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, from, caller, "can_remove");
  const post = posts.findPost(ctx, postId);
  if (!post || post.colonyId !== from.id || post.deletedAt !== null || post.state !== "published") throw notFound("Post not found in this colony");
  if (from.communityType === "private") throw invalid("Posts of a private colony cannot be moved out: that would disclose them to everyone");
  const to = colonies.findColonyByName(ctx, GENERAL_COLONY);
  if (!to || to.deletedAt !== null) throw invalid("This instance has no general colony to move posts into");
  if (to.id === from.id) throw invalid("This post is already in the general colony");
  return ctx.db.transaction((tx) => {
    posts.setPostColony(ctx, tx, post, to.id);
    setPostCommentsColony(tx, post.id, to.id);
    recordModAction(ctx, { colonyId: from.id, actorId: caller.id, action: "move_out", targetType: "post", targetId: post.id, targetUserId: post.authorId, meta: { to_colony_id: to.id } });
    ctx.events.emit(tx, {
      type: "post_moved",
      actorId: caller.id,
      subject: { type: "post", id: post.id },
      payload: { post_id: post.id, post_title: post.title, author_id: post.authorId, from_colony_id: from.id, from_colony_name: from.name, to_colony_id: to.id, to_colony_name: to.name },
    });
    return { post_id: post.id, from_colony_id: from.id, to_colony_id: to.id, moved: true };
  });
}
