// Query fragments over posts for other features' list queries (they never touch the posts table
// directly), and the context pack's related-posts lookup.
import { and, desc, eq, ne, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Ctx } from "../../core/context";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { PostRow } from "./service";
import { prepared } from "../../db/statements";
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

export interface RelatedPost {
  id: string;
  title: string;
  postType: PostRow["postType"];
  colonyId: string;
  score: number;
  commentCount: number;
  createdAt: number;
}

type Viewer = "anonymous" | "admin" | "member";

/** The candidates' listed, readable posts, most shared tags first, then newest: one cached statement per kind of viewer. */
function relatedStatement(ctx: Ctx, viewer: Viewer) {
  const db = ctx.db;
  return prepared(db, `posts.related.${viewer}`, () => {
    // readableColonyFilter with the viewer's id as a placeholder, so the statement is shared by every member.
    const actor = viewer === "anonymous" ? null : { id: sql.placeholder("viewer") as unknown as string, isAdmin: viewer === "admin" };
    const shared = sql<number>`cast(c.value as integer)`;
    return db
      .select({
        id: posts.id,
        title: posts.title,
        postType: posts.postType,
        colonyId: posts.colonyId,
        score: posts.score,
        commentCount: posts.commentCount,
        createdAt: posts.createdAt,
      })
      .from(sql`json_each(${sql.placeholder("candidates")}) as c`)
      .innerJoin(posts, sql`${posts.id} = c.key`)
      .where(and(eq(posts.listed, 1), colonies.readableColonyFilter(ctx, actor, posts.colonyId)))
      .orderBy(desc(shared), desc(posts.createdAt), desc(posts.id))
      .limit(sql.placeholder("max"))
      .prepare();
  });
}

/**
 * Listed posts the caller may read sharing tags with `post`, most shared tags first, then newest.
 * Bounded: each tag contributes at most RELATED_TAG_SCAN of its newest post ids through the
 * (tag, post_id) primary key, so a popular tag never scans its whole history. The candidates go
 * to SQLite as one JSON object (id: shared count), which ranks them and returns only `max` rows
 * of the columns the context pack shows.
 */
export function relatedPosts(ctx: Ctx, caller: Caller | null, post: PostRow, max = RELATED_MAX): { post: RelatedPost; shared: string[] }[] {
  if (!post.tags.length) return [];
  const db = ctx.db;
  const byTag = prepared(db, "posts.related.byTag", () =>
    db
      .select({ id: postTags.postId })
      .from(postTags)
      .where(and(eq(postTags.tag, sql.placeholder("tag")), ne(postTags.postId, sql.placeholder("post"))))
      .orderBy(desc(postTags.postId))
      .limit(RELATED_TAG_SCAN)
      .prepare(),
  );
  const shared = new Map<string, string[]>();
  for (const tag of post.tags) {
    for (const { id } of byTag.all({ tag, post: post.id })) {
      const tags = shared.get(id);
      if (tags) tags.push(tag);
      else shared.set(id, [tag]);
    }
  }
  if (!shared.size) return [];
  const candidates: Record<string, number> = {};
  for (const [id, tags] of shared) candidates[id] = tags.length;
  const viewer: Viewer = !caller ? "anonymous" : caller.isAdmin ? "admin" : "member";
  const rows = relatedStatement(ctx, viewer).all({ candidates: JSON.stringify(candidates), max, viewer: caller?.id ?? null });
  return rows.map((p) => ({ post: p, shared: shared.get(p.id)! }));
}
