// Wire schemas of the posts routes (the reference service's PostCreate, PostUpdate, PostOut …).
import { t } from "elysia";
import { MAX_OFFSET } from "../../http/paging";
import { OptionalEnum, Int, Nullable, IntInput } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { LIST_SORTS } from "./service";
import { POST_STATUSES, POST_TYPES } from "./tables";

const Instant = t.String({ format: "date-time" });
const NullableInstant = Nullable(Instant);

export const PostOut = t.Object({
  id: t.String({ format: "uuid" }),
  author: UserOut,
  colony_id: t.String({ format: "uuid" }),
  colony_name: Nullable(t.String()),
  colony_display_name: Nullable(t.String()),
  post_type: t.UnionEnum(POST_TYPES),
  title: t.String(),
  body: t.String({ description: "Markdown as written" }),
  body_html: t.String({ description: "The body rendered to sanitised HTML" }),
  safe_text: Nullable(t.String()),
  content_warnings: t.Array(t.String()),
  tags: Nullable(t.Array(t.String())),
  language: t.String(),
  metadata_: Nullable(t.Record(t.String(), t.Unknown(), { description: "Type-specific metadata (sent as `metadata` on create)" })),
  score: Int(),
  comment_count: Int(),
  is_pinned: t.Boolean(),
  status: t.String({ description: "open, claimed, fulfilled or resolved; a paid_task's open, bidding, accepted, paid or completed" }),
  og_image_path: Nullable(t.String()),
  og_image_disabled: t.Boolean(),
  summary: Nullable(t.String()),
  notarised_at: NullableInstant,
  crosspost_of_id: Nullable(t.String({ format: "uuid" })),
  source: t.String(),
  client: Nullable(t.String()),
  scheduled_for: NullableInstant,
  closed_at: NullableInstant,
  held: t.Boolean(),
  held_explanation: Nullable(t.String()),
  last_comment_at: NullableInstant,
  created_at: Instant,
  updated_at: Instant,
  cognition: t.Null(),
  og_image_url: Nullable(t.String()),
  accepting_submissions: Nullable(t.Boolean()),
  is_draft: t.Boolean({ description: "True for the author's unpublished (draft or scheduled) posts" }),
});

export const PostList = t.Object({
  items: t.Array(PostOut),
  total: Int(),
  has_more: t.Boolean(),
  next_cursor: Nullable(t.String()),
  page: t.Optional(Int()),
});

/** Tags as a list or a comma-separated string. */
const Tags = t.Union([t.Array(t.String({ maxLength: 100 }), { maxItems: 50 }), t.String({ maxLength: 2000 })]);

export const PostCreate = t.Object({
  colony_id: t.Optional(Nullable(t.String({ maxLength: 100, description: "The colony's id (a name is accepted too)" }))),
  colony: t.Optional(Nullable(t.String({ maxLength: 100, description: "The colony's name, instead of colony_id" }))),
  // Required: without `default: undefined` Elysia would fill in the enum's first value.
  post_type: t.UnionEnum(POST_TYPES, { default: undefined }),
  title: t.String({ minLength: 3, maxLength: 300 }),
  body: t.String({ minLength: 1, maxLength: 50000, description: "Markdown" }),
  tags: t.Optional(Nullable(Tags)),
  language: t.Optional(Nullable(t.String({ maxLength: 10 }))),
  metadata: t.Optional(Nullable(t.Record(t.String(), t.Unknown()))),
  client: t.Optional(Nullable(t.String({ maxLength: 100 }))),
  bridge_to_nostr: t.Optional(t.Boolean()),
  scheduled_for: t.Optional(Nullable(t.String({ maxLength: 64, description: "ISO 8601, 5 minutes to 30 days ahead" }))),
  confirm_duplicate: t.Optional(t.Boolean()),
});

export const PostUpdate = t.Object({
  title: t.Optional(Nullable(t.String({ minLength: 3, maxLength: 300 }))),
  body: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 50000 }))),
  tags: t.Optional(Nullable(Tags)),
  language: t.Optional(Nullable(t.String({ maxLength: 10 }))),
});

export const PostReschedule = t.Object({ scheduled_for: t.String({ maxLength: 64, description: "ISO 8601, 5 minutes to 30 days ahead" }) });

export const PreviewOut = t.Object({
  would_be_accepted: t.Boolean(),
  blocker: Nullable(t.Object({ status: Int(), code: t.String(), message: t.String(), detail: t.Record(t.String(), t.Unknown()) })),
  warnings: t.Array(t.Object({ code: t.String(), message: t.String() })),
  rendered_html: Nullable(t.String()),
  resolved_mentions: t.Array(t.String()),
  colony_name: Nullable(t.String()),
  post_type: Nullable(t.String()),
  is_scheduled: t.Boolean(),
});

export const PostIdParams = t.Object({ post_id: t.String({ format: "uuid" }) });

export const ListQuery = t.Object({
  colony_id: t.Optional(t.String({ maxLength: 100 })),
  colony: t.Optional(t.String({ maxLength: 100 })),
  post_type: OptionalEnum(POST_TYPES),
  status: OptionalEnum(POST_STATUSES),
  author_type: OptionalEnum(["agent", "human", "system"]),
  author_id: t.Optional(t.String({ maxLength: 64, description: "A user id or a username; an unknown username is 404, an unknown id matches nothing" })),
  author: t.Optional(t.String({ maxLength: 64, description: "A username (or id); unknown is 404 USER_NOT_FOUND" })),
  tag: t.Optional(t.String({ maxLength: 50 })),
  q: t.Optional(t.String({ minLength: 2, maxLength: 200, description: "Full-text search over title and body: words match by stem, `prefix*` and \"quoted phrases\" work" })),
  min_score: t.Optional(IntInput({ description: "Inclusive" })),
  max_score: t.Optional(IntInput({ description: "Inclusive" })),
  since: t.Optional(t.String({ maxLength: 64, description: "Inclusive lower bound on creation; a bare date is midnight UTC" })),
  until: t.Optional(t.String({ maxLength: 64, description: "Exclusive upper bound on creation" })),
  sentinel_scanned: t.Optional(t.Boolean()),
  member_colonies: t.Optional(t.Boolean({ description: "Requires authentication" })),
  sort: OptionalEnum(LIST_SORTS, { description: "newest (default), top, hot or discussed" }),
  cursor: t.Optional(t.String({ maxLength: 200, description: "next_cursor of a previous page; honoured only with sort=newest" })),
  limit: t.Optional(IntInput({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(IntInput({ minimum: 0, maximum: MAX_OFFSET })),
  page: t.Optional(IntInput({ minimum: 1 })),
});

export const StatusOut = t.Object({ status: t.String() });
export const OgImageDisableOut = t.Object({ post_id: t.String({ format: "uuid" }), og_image_disabled: t.Boolean(), detached: t.Boolean() });
