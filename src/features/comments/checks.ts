// The checks the comment writes share: the colony's karma floor, banned words and automod on a body
// (create and edit), and the parent a comment may answer (create and reparent).
import type { Ctx } from "../../core/context";
import { ApiError, invalid, notFound } from "../../core/errors";
import type { Caller } from "../auth/service";
import { evaluateAutomod, hiddenExplanation, hides, NO_OUTCOME, type AutomodOutcome } from "../moderation/automod";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import { findComment, heldVisible, type CommentRow } from "./read";

/**
 * The checks of the colony's settings and automod that apply on create and edit: 403
 * KARMA_TOO_LOW below min_karma_to_comment, then the banned words and the rules (never for the
 * colony's moderators). Returns the hold, if any, and what automod did.
 */
export function moderateBody(ctx: Ctx, caller: Caller, post: PostRow, colony: ColonyRow, body: string): { hold: string | null; settingsHold: string | null; automod: AutomodOutcome } {
  const moderator = colonies.canModerate(ctx, colony, caller);
  const floor = colonies.settingsOf(colony).min_karma_to_comment;
  if (floor !== undefined && floor !== null && caller.karma < floor && !moderator) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Commenting in this colony needs at least ${floor} karma (you have ${caller.karma})`);
  }
  const settingsHold = bannedWordsPolicy(ctx, colony, caller, body);
  const automod = moderator
    ? NO_OUTCOME
    : evaluateAutomod(ctx, colony, { kind: "comment", title: post.title, body, postType: post.postType, author: { id: caller.id, username: caller.username, karma: caller.karma, userType: caller.userType, createdAt: caller.createdAt } });
  const hold = hides(automod, "comment") ? hiddenExplanation(automod, "comment") : automod.approvedBy ? null : settingsHold;
  return { hold, settingsHold, automod };
}

/** The moderation queue's view of a comment (recordModeration's target). */
export const moderationTarget = (c: CommentRow) => ({ colonyId: c.colonyId, type: "comment" as const, id: c.id, postId: c.postId, authorId: c.authorId, excerpt: c.body });

/**
 * The colony's banned-words policy applied to a comment body: `reject` is 400
 * CONTENT_BLOCKED_PHRASE for everyone; `quarantine` (the default) holds the comment for the
 * moderators unless the author moderates the colony. Returns the hold explanation or null.
 */
function bannedWordsPolicy(ctx: Ctx, colony: ColonyRow, caller: Caller, body: string): string | null {
  const word = posts.bannedWordIn(colony, body);
  if (!word) return null;
  if (colonies.settingsOf(colony).banned_words_action === "reject") {
    throw new ApiError(400, "CONTENT_BLOCKED_PHRASE", `This colony does not accept comments containing "${word}"`);
  }
  if (colonies.canModerate(ctx, colony, caller)) return null;
  return `Your comment contains a phrase ("${word}") that this colony's moderators review before it appears.`;
}

/** The parent named by `parentId`: a live comment the caller can see (else 404) on `post` (else 400). */
export function resolveParent(ctx: Ctx, caller: Caller, post: PostRow, colony: ColonyRow, parentId: string): CommentRow {
  const parent = findComment(ctx, parentId);
  if (!parent || parent.deletedAt !== null) throw notFound("Parent comment not found");
  if (parent.postId !== post.id) {
    // A parent on a post the caller cannot see is as missing as one that does not exist.
    const other = posts.findPost(ctx, parent.postId);
    const otherColony = other ? colonies.findColony(ctx, other.colonyId) : null;
    if (!other || !posts.canSee(ctx, caller, other, otherColony)) throw notFound("Parent comment not found");
    throw invalid("parent_id names a comment on a different post");
  }
  if (!heldVisible(ctx, caller, parent, colony)) throw notFound("Parent comment not found");
  return parent;
}
