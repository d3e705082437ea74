// Collections on the wire: CollectionOut (author, with `user` its deprecated copy), CollectionDetail
// with the items in position order, CollectionItemOut with a short post summary.
import type { Ctx } from "../../core/context";
import { iso } from "../../core/clock";
import { withAliases } from "../../http/deprecations";
import type { PostRow } from "../posts/service";
import { personRefs, type PersonRef } from "../users/views";
import type { CollectionRow, ItemRow } from "./service";

export function collectionsOut(ctx: Ctx, rows: CollectionRow[], schema: "CollectionOut" | "CollectionDetail" = "CollectionOut") {
  const person = personRefs(
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
      author: person(c.userId),
    } as { id: string; title: string; description: string | null; is_public: boolean; post_count: number; created_at: string; updated_at: string; author: PersonRef; user?: PersonRef }),
  );
}

export const itemOut = (item: ItemRow, post: PostRow) => ({
  id: item.id,
  post: { id: post.id, title: post.title, post_type: post.postType, score: post.score, comment_count: post.commentCount, created_at: iso(post.createdAt) },
  position: item.position,
  note: item.note,
  added_at: iso(item.addedAt),
});
