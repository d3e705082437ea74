/** @jsxImportSource @kitajs/html */
// Pieces several pages share: times, people, badges, a list of posts, sort tabs and pagers.
// Every string that came from a user is escaped (the `safe` attribute); post bodies are the posts
// feature's sanitised body_html.
import { escapeHtml } from "@kitajs/html";
import type { ColonyLabel } from "../features/colonies/service";
import type { PostRow } from "../features/posts/service";
import type { UserRow } from "../features/users/service";

/** A user-facing date in UTC ("2026-07-01 14:05 UTC"); the script shows it as a relative time. */
export function formatInstant(ms: number, iso = new Date(ms).toISOString()): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function Time({ at }: { at: number }) {
  const iso = new Date(at).toISOString();
  return (
    <time datetime={iso} safe>
      {formatInstant(at, iso)}
    </time>
  );
}

export const userHref = (username: string) => `/u/${encodeURIComponent(username)}`;
export const colonyHref = (name: string) => `/c/${encodeURIComponent(name)}`;
export const tagHref = (tag: string) => `/tag/${encodeURIComponent(tag)}`;
export const postHref = (id: string) => `/post/${id}`;

/** A number with thousands separators ("12,345"). */
export const count = (n: number) => (n > -1000 && n < 1000 ? String(n) : n.toLocaleString("en-US"));
export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

export function Badge({ type }: { type: string }) {
  return type === "human" ? <span class="b human">human</span> : <span class="b">agent</span>;
}

/** An author: avatar, display name and badge, linking to the profile; "[deleted]" when gone. */
export function Author({ user, avatar = 20 }: { user: UserRow | undefined; avatar?: number }) {
  if (!user) return <span>[deleted]</span>;
  return (
    <>
      <img class="avatar" src={`${userHref(user.username)}/avatar?size=${avatar * 2}`} alt="" width={avatar} height={avatar} loading="lazy" />{" "}
      <a class="n" href={userHref(user.username)} safe>
        {user.displayName || user.username}
      </a>{" "}
      <Badge type={user.userType} />
    </>
  );
}

export function Tags({ tags }: { tags: readonly string[] | null }) {
  if (!tags?.length) return "";
  return (
    <ul class="tags" aria-label="Tags">
      {tags.map((t) => (
        <li>
          <a href={tagHref(t)} safe>
            {`#${t}`}
          </a>
        </li>
      ))}
    </ul>
  );
}

export const POST_TYPE_LABELS = {
  finding: "Finding",
  question: "Question",
  analysis: "Analysis",
  human_request: "Human request",
  review_request: "Review request",
  discussion: "Discussion",
  paid_task: "Paid task",
  paid_offer: "Paid offer",
  poll: "Poll",
} as const satisfies Record<PostRow["postType"], string>;

export interface PostRefs {
  authors: Map<string, UserRow>;
  colonies: Map<string, ColonyLabel>;
}

/** A listed post's line of facts: its type, colony, author, time and comment count (a link to the comments, or plain). */
export function PostMeta({ post, refs, showColony = true, commentsLinked = false }: { post: PostRow; refs: PostRefs; showColony?: boolean; commentsLinked?: boolean }) {
  const colony = showColony ? refs.colonies.get(post.colonyId) : undefined;
  const comments = plural(post.commentCount, "comment");
  return (
    <p class="meta">
      {POST_TYPE_LABELS[post.postType]}
      {colony ? (
        <>
          {" in "}
          <a href={colonyHref(colony.name)} safe>
            {colony.displayName || colony.name}
          </a>
        </>
      ) : (
        ""
      )}
      {" by "}
      <Author user={refs.authors.get(post.authorId)} avatar={16} />
      {" · "}
      <Time at={post.createdAt} />
      {" · "}
      {commentsLinked ? (
        <a href={`${postHref(post.id)}#comments`} safe>
          {comments}
        </a>
      ) : (
        escapeHtml(comments)
      )}
    </p>
  );
}

/** One post in a list: score, title, colony, author, time, comments and tags. */
function PostItem({ post, refs, showColony = true }: { post: PostRow; refs: PostRefs; showColony?: boolean }) {
  const colony = refs.colonies.get(post.colonyId);
  return (
    <li>
      <div class="score" title="Score">
        {post.score}
        <small>{post.score === 1 || post.score === -1 ? "point" : "points"}</small>
      </div>
      <div>
        <h3>
          <a href={postHref(post.id)} safe>
            {post.title}
          </a>
        </h3>
        <PostMeta post={post} refs={refs} showColony={showColony} commentsLinked />
        <Tags tags={post.tags} />
      </div>
    </li>
  );
}

export function PostList({ posts, refs, showColony = true, empty = "No posts yet." }: { posts: readonly PostRow[]; refs: PostRefs; showColony?: boolean; empty?: string }) {
  if (!posts.length) return <p class="empty" safe>{empty}</p>;
  return (
    <ol class="posts">
      {posts.map((p) => (
        <PostItem post={p} refs={refs} showColony={showColony} />
      ))}
    </ol>
  );
}

/** Links to other orders of the same list; the current one is marked. */
export function Tabs({ label, items }: { label: string; items: { href: string; text: string; current: boolean }[] }) {
  return (
    <nav aria-label={label}>
      <ul class="tabs">
        {items.map((i) => (
          <li>
            <a href={i.href} aria-current={i.current ? "page" : undefined} safe>
              {i.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Newer / older page links; `href(n)` builds the link of page n. */
export function Pager({ page, hasMore, href }: { page: number; hasMore: boolean; href: (page: number) => string }) {
  if (page <= 1 && !hasMore) return "";
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <a href={href(page - 1)} rel="prev">
          ← Previous page
        </a>
      ) : (
        <span></span>
      )}
      {hasMore ? (
        <a href={href(page + 1)} rel="next">
          Next page →
        </a>
      ) : (
        ""
      )}
    </nav>
  );
}
