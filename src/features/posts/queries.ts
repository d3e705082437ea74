// Query fragments over posts for other features' list queries (they never touch the posts table
// directly), and the context pack's related-posts lookup.
import { and, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Ctx } from "../../core/context";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { PostRow } from "./service";
import { postTags, posts } from "./tables";

/**
 * A WHERE condition: the post named by `postIdColumn` is listed (published, not held, not
 * deleted). A primary-key probe per candidate row.
 */
export function listedPostFilter(postIdColumn: SQLiteColumn): SQL {
  return sql`exists (select 1 from ${posts} where ${posts.id} = ${postIdColumn} and ${posts.listed} = 1)`;
}

export const RELATED_MAX = 5;
/** Tags of the post considered for related posts (a post has at most 10). */
const RELATED_TAG_SCAN = 200;

/**
 * Listed posts the caller may read sharing tags with `post`, most shared tags first, then newest.
 * Bounded: each tag contributes at most RELATED_TAG_SCAN of its newest post ids through the
 * (tag, post_id) primary key, so a popular tag never scans its whole history.
 */
export function relatedPosts(ctx: Ctx, caller: Caller | null, post: PostRow, max = RELATED_MAX): { post: PostRow; shared: string[] }[] {
  if (!post.tags.length) return [];
  const shared = new Map<string, string[]>();
  for (const tag of post.tags) {
    const ids = ctx.db
      .select({ id: postTags.postId })
      .from(postTags)
      .where(and(eq(postTags.tag, tag), ne(postTags.postId, post.id)))
      .orderBy(desc(postTags.postId))
      .limit(RELATED_TAG_SCAN)
      .all();
    for (const { id } of ids) shared.set(id, [...(shared.get(id) ?? []), tag]);
  }
  if (!shared.size) return [];
  const rows = ctx.db
    .select()
    .from(posts)
    .where(and(inArray(posts.id, [...shared.keys()]), eq(posts.listed, 1), colonies.readableColonyFilter(ctx, caller, posts.colonyId)))
    .all();
  return rows
    .map((p) => ({ post: p, shared: shared.get(p.id)! }))
    .sort((a, b) => b.shared.length - a.shared.length || b.post.createdAt - a.post.createdAt || (a.post.id < b.post.id ? 1 : -1))
    .slice(0, max);
}
