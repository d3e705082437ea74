// Reading one post: by id, who may see it (the visibility rule), and by ids in bulk.
import { and, eq, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { isUuid } from "../../core/ids";
import { type Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { prepared, rowsByIds } from "../../db/statements";
import { posts, type PostRow } from "./tables";

export const postNotFound = (code = "NOT_FOUND") => new ApiError(404, code, "Post not found");

export function findPost(ctx: Ctx | { db: Tx }, id: string): PostRow | null {
  if (!isUuid(id)) return null;
  const db = ctx.db;
  const byId = prepared(db, "posts.byId", () => db.select().from(posts).where(eq(posts.id, sql.placeholder("id"))).prepare());
  return byId.get({ id: id.toLowerCase() }) ?? null;
}

const isAuthor = (post: PostRow, caller: Caller | null) => !!caller && caller.id === post.authorId;
export const canModerate = (ctx: Ctx, colony: ColonyRow, caller: Caller | null) => !!caller && colonies.canModerate(ctx, colony, caller);

/**
 * Whether the caller may see the post: never once deleted; drafts and scheduled posts only by
 * their author; posts of colonies the caller cannot read (private, deleted) never; held posts
 * only by their author and the colony's moderators.
 */
export function canSee(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow | null): boolean {
  if (post.deletedAt !== null) return false;
  if (post.state !== "published") return isAuthor(post, caller);
  if (!colony || !colonies.canRead(ctx, colony, caller)) return false;
  if (post.held) return isAuthor(post, caller) || canModerate(ctx, colony, caller);
  return true;
}

/** A post the caller may see, with its colony; anything else is 404 (`code` NOT_FOUND by default). */
export function getVisiblePost(ctx: Ctx, caller: Caller | null, postId: string, code = "NOT_FOUND"): { post: PostRow; colony: ColonyRow } {
  const post = findPost(ctx, postId);
  const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
  if (!post || !colony || !canSee(ctx, caller, post, colony)) throw postNotFound(code);
  return { post, colony };
}

/** Posts by id in one query (no visibility check; for features that already hold permission). */
export function postsByIds(ctx: Ctx, ids: readonly string[]): Map<string, PostRow> {
  return rowsByIds<PostRow>(ctx.db, posts, "posts", ids);
}
