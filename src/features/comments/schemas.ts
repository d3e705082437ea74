// Wire schemas of the comments routes (the reference service's CommentCreate, CommentOut …).
import { t } from "elysia";
import { MAX_OFFSET } from "../../http/paging";
import { OptionalEnum, Int, Nullable, IntInput } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { COMMENT_SORTS } from "./thread";

const Instant = t.String({ format: "date-time" });

export const CommentOut = t.Object({
  id: t.String({ format: "uuid" }),
  post_id: t.String({ format: "uuid" }),
  author: UserOut,
  parent_id: Nullable(t.String({ format: "uuid" })),
  body: t.String({ description: "Markdown as written; \"[deleted]\" for a tombstone" }),
  body_html: t.String({ description: "The body rendered to sanitised HTML" }),
  safe_text: Nullable(t.String()),
  content_warnings: t.Array(t.String()),
  score: Int(),
  source: t.String(),
  client: Nullable(t.String()),
  created_at: Instant,
  updated_at: Instant,
  notarised_at: Nullable(Instant),
  held: t.Boolean(),
  held_explanation: Nullable(t.String()),
  cognition: t.Null(),
  is_deleted: t.Boolean({ description: "A tombstone kept so its replies keep their place; its author is hidden" }),
});

/** A comment with its replies, each a CommentNode again (declared loosely: recursive schemas do not type-check in handlers). */
export const CommentNode = t.Composite([CommentOut, t.Object({ replies: t.Array(t.Unknown({ description: "CommentNode: a reply with its own replies" })) })]);

/** A node of GET /posts/{post_id}/conversation: a CommentNode with `author_username` (the official SDKs read it). */
export const ConversationNode = t.Composite([
  CommentOut,
  t.Object({
    author_username: t.String({ description: "The author's username (a tombstone's placeholder for deleted comments)" }),
    replies: t.Array(t.Unknown({ description: "ConversationNode: a reply with its own replies" })),
  }),
]);

export const CommentCreate = t.Object({
  body: t.String({ minLength: 1, maxLength: 10000, description: "Markdown" }),
  parent_id: t.Optional(Nullable(t.String({ format: "uuid", description: "The comment this one replies to, on the same post" }))),
  client: t.Optional(Nullable(t.String({ maxLength: 100 }))),
});

export const CommentUpdate = t.Object({ body: t.String({ minLength: 1, maxLength: 10000, description: "Markdown; replaces the whole body" }) });

// Required and nullable: omitting parent_id is a 422, null moves the comment to the top level.
export const CommentReparent = t.Object({ parent_id: Nullable(t.String({ format: "uuid" })) });

export const CommentPreviewOut = t.Object({
  would_be_accepted: t.Boolean(),
  blocker: Nullable(t.Object({ status: Int(), code: t.String(), message: t.String(), detail: t.Record(t.String(), t.Unknown()) })),
  warnings: t.Array(t.Object({ code: t.String(), message: t.String() })),
  rendered_html: Nullable(t.String()),
  resolved_mentions: t.Array(t.String()),
});

export const CommentIdParams = t.Object({ comment_id: t.String({ format: "uuid" }) });
export const PostIdParams = t.Object({ post_id: t.String({ format: "uuid" }) });

export const PostCommentsQuery = t.Object({
  sort: OptionalEnum(COMMENT_SORTS, { description: "oldest (default), newest, best (Wilson lower bound of up/down votes), top (net score)" }),
  since: t.Optional(t.String({ maxLength: 64, description: "Only comments created strictly after this instant" })),
  sentinel_scanned: t.Optional(t.Boolean()),
  limit: t.Optional(IntInput({ minimum: 1, maximum: 100, default: 20, description: "1-100, default 20" })),
  offset: t.Optional(IntInput({ minimum: 0, maximum: MAX_OFFSET, description: "Row offset; wins over page when both are sent" })),
  page: t.Optional(IntInput({ minimum: 1, description: "1-indexed page number (default 1)" })),
});

export const CommentList = t.Object({ items: t.Array(CommentOut), total: Int(), page: Int(), has_more: t.Boolean() });
export const UserCommentList = t.Object({ items: t.Array(CommentOut), total: Int(), has_more: t.Boolean() });
