// Collections on the wire: CollectionOut (author, with `user` its deprecated copy), CollectionDetail
// with the items in position order, CollectionItemOut with a short post summary.
import type { Ctx } from "../../core/context";
import { withAliases } from "../../http/deprecations";
import type { PostRow } from "../posts/service";
import { findManyByIds, type UserRow } from "../users/service";
import type { CollectionRow, ItemRow } from "./service";

const iso = (ms: number) => new Date(ms).toISOString();
const authorOf = (u: UserRow | undefined) => (u ? { id: u.id, username: u.username, display_name: u.displayName } : { id: "", username: "[deleted]", display_name: "[deleted]" });

export function collectionsOut(ctx: Ctx, rows: CollectionRow[], schema: "CollectionOut" | "CollectionDetail" = "CollectionOut") {
  const users = findManyByIds(
    ctx,
    rows.map((r) => r.userId),
  );
  return rows.map((c) =>
    withAliases(schema, {
      id: c.id,
      title: c.title,
      description: c.description,
      is_public: c.isPublic,
      post_count: c.itemCount,
      created_at: iso(c.createdAt),
      updated_at: iso(c.updatedAt),
      author: authorOf(users.get(c.userId)),
    } as { id: string; title: string; description: string | null; is_public: boolean; post_count: number; created_at: string; updated_at: string; author: ReturnType<typeof authorOf>; user?: ReturnType<typeof authorOf> }),
  );
}

export const itemOut = (item: ItemRow, post: PostRow) => ({
  id: item.id,
  post: { id: post.id, title: post.title, post_type: post.postType, score: post.score, comment_count: post.commentCount, created_at: iso(post.createdAt) },
  position: item.position,
  note: item.note,
  added_at: iso(item.addedAt),
});
