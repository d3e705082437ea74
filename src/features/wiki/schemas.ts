// Request and response schemas of the wiki routes (field names and bounds from the reference
// document's WikiPageCreate, WikiPageUpdate, WikiPageOut, WikiPageListItem, WikiRevisionListItem
// and WikiRevisionOut; the rest where the reference has none, docs/decisions.md §88).
import { t } from "elysia";
import { Int, Nullable, IntInput } from "../../http/schemas";
import { CATEGORY_MAX, CONTENT_MAX, SLUG_MAX, SUMMARY_MAX, TITLE_MAX } from "./service";

const date = () => t.String({ format: "date-time" });
const Colony = t.Optional(Nullable(t.String({ maxLength: 100, description: "A colony's name: its wiki. Omitted: the site wiki." })));

const WikiAuthor = t.Object({ username: t.String(), display_name: t.String() });

const colonyFields = {
  colony_name: Nullable(t.String()),
  colony: Nullable(t.String({ deprecated: true, description: "Deprecated: use `colony_name`, which carries the same value." })),
};

export const WikiPageOut = t.Object({
  id: t.String({ format: "uuid" }),
  slug: t.String(),
  title: t.String(),
  content: t.String(),
  category: Nullable(t.String()),
  created_by: WikiAuthor,
  updated_by: WikiAuthor,
  is_locked: t.Boolean(),
  revision_count: Int(),
  ...colonyFields,
  created_at: date(),
  updated_at: date(),
});

const WikiPageListItem = t.Object({
  id: t.String({ format: "uuid" }),
  slug: t.String(),
  title: t.String(),
  category: Nullable(t.String()),
  updated_by: WikiAuthor,
  revision_count: Int(),
  ...colonyFields,
  created_at: date(),
  updated_at: date(),
});

export const WikiPageList = t.Object({ items: t.Array(WikiPageListItem), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });

const WikiDeletedPage = t.Object({
  id: t.String({ format: "uuid" }),
  slug: t.String(),
  title: t.String(),
  category: Nullable(t.String()),
  created_by: WikiAuthor,
  updated_by: WikiAuthor,
  revision_count: Int(),
  ...colonyFields,
  created_at: date(),
  updated_at: date(),
  deleted_at: date(),
  deleted_by: Nullable(WikiAuthor),
});

export const WikiDeletedList = t.Object({ items: t.Array(WikiDeletedPage), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });

export const WikiRevisionListItem = t.Object({
  id: t.String({ format: "uuid" }),
  title: t.String(),
  summary: Nullable(t.String()),
  author: WikiAuthor,
  created_at: date(),
});

export const WikiRevisionOut = t.Object({
  id: t.String({ format: "uuid" }),
  title: t.String(),
  content: t.String(),
  summary: Nullable(t.String()),
  author: WikiAuthor,
  created_at: date(),
});

export const WikiRevisionDiffOut = t.Object({
  revision_id: t.String({ format: "uuid" }),
  previous_revision_id: Nullable(t.String({ format: "uuid" }), { description: "The revision compared against; null for a page's first revision (compared with an empty page)" }),
  old_title: Nullable(t.String(), { description: "The title before the revision; null for the first" }),
  new_title: t.String(),
  diff: t.String({ description: "Unified diff of the content (`diff -u` layout, 3 lines of context); empty when the content did not change" }),
  additions: Int({ description: "Lines the revision added" }),
  deletions: Int({ description: "Lines the revision removed" }),
  author: WikiAuthor,
  created_at: date(),
});

export const WikiPageCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: TITLE_MAX }),
  slug: t.String({ minLength: 1, maxLength: SLUG_MAX, pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", description: "Lowercase letters and digits separated by single hyphens; cannot change later" }),
  content: t.Optional(t.String({ maxLength: CONTENT_MAX, default: "" })),
  category: t.Optional(Nullable(t.String({ maxLength: CATEGORY_MAX }))),
  summary: t.Optional(Nullable(t.String({ maxLength: SUMMARY_MAX }))),
  colony: Colony,
});

export const WikiPageUpdate = t.Object({
  title: t.Optional(Nullable(t.String({ minLength: 1, maxLength: TITLE_MAX }))),
  content: t.Optional(Nullable(t.String({ maxLength: CONTENT_MAX }))),
  category: t.Optional(Nullable(t.String({ maxLength: CATEGORY_MAX, description: "null clears the category" }))),
  summary: t.Optional(Nullable(t.String({ maxLength: SUMMARY_MAX }))),
  base_revision: t.Optional(Nullable(IntInput({ minimum: 1, description: "The revision number (revision_count) your edit starts from: 409 CONFLICT if the page moved on since" }))),
});

export const WikiRevert = t.Object({
  revision_id: t.String({ format: "uuid", description: "The earlier revision to restore" }),
  summary: t.Optional(Nullable(t.String({ maxLength: SUMMARY_MAX }))),
});

export const WikiColonyQuery = t.Object({ colony: Colony });

export const SlugParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 300 }) });
export const RevisionParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 300 }), revision_id: t.String({ minLength: 1, maxLength: 64 }) });

export const WikiEditorOut = t.Object({
  user_id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: t.String(),
  added_by: Nullable(WikiAuthor),
  created_at: date(),
});
export const WikiEditorList = t.Object({ items: t.Array(WikiEditorOut), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });
export const WikiEditorCreate = t.Object({ username: t.String({ minLength: 1, maxLength: 64, description: "The account to add" }) });
