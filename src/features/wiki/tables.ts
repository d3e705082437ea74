// The wiki (spec Part 3 §4.14): pages of the site wiki and of colony wikis, their revisions, and
// each colony's list of approved wiki editors. The full-text index over pages (wiki_pages_fts)
// is hand-written SQL (migrations/0034_wiki_fts.sql).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * A wiki page. `colony_id` null is the site wiki. The slug is unique per wiki, deleted pages
 * included (a soft-deleted page keeps its slug: a later create is 409), and never changes.
 * `title`, `content` and `category` are the latest revision's.
 */
export const wikiPages = sqliteTable(
  "wiki_pages",
  {
    id: text("id").primaryKey(),
    colonyId: text("colony_id"),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    content: text("content").notNull(),
    category: text("category"),
    createdBy: text("created_by").notNull(),
    updatedBy: text("updated_by").notNull(),
    /** How many revisions the page has; also the number of its latest revision (base_revision). */
    revisionCount: integer("revision_count").notNull(),
    lockedAt: integer("locked_at"),
    lockedBy: text("locked_by"),
    deletedAt: integer("deleted_at"),
    deletedBy: text("deleted_by"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // One page per slug and wiki ('' stands for the site wiki: null never collides in an index).
    uniqueIndex("wiki_pages_slug_idx").on(sql`coalesce(${t.colonyId}, '')`, t.slug),
    // GET /wiki: a wiki's live pages by title.
    index("wiki_pages_title_idx").on(t.colonyId, sql`${t.title} collate nocase`, t.slug).where(sql`${t.deletedAt} is null`),
    // GET /wiki?category=…
    index("wiki_pages_category_idx").on(t.colonyId, t.category).where(sql`${t.deletedAt} is null`),
    // GET /wiki/deleted: a wiki's deleted pages, newest deletion first.
    index("wiki_pages_deleted_idx").on(t.colonyId, t.deletedAt).where(sql`${t.deletedAt} is not null`),
  ],
);

/**
 * One revision of a page: the full snapshot after the edit (title, content, category) with the
 * editor's summary. `number` counts a page's revisions from 1 in order.
 */
export const wikiRevisions = sqliteTable(
  "wiki_revisions",
  {
    id: text("id").primaryKey(),
    pageId: text("page_id")
      .notNull()
      .references(() => wikiPages.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    title: text("title").notNull(),
    content: text("content").notNull(),
    category: text("category"),
    summary: text("summary"),
    authorId: text("author_id").notNull(),
    /** title and content length in characters (the daily volume cap counts them). */
    chars: integer("chars").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // History newest first, the revision before another (diff), one number per page, and
    // whether anyone but the creator edited a page (delete).
    uniqueIndex("wiki_revisions_page_number_idx").on(t.pageId, t.number),
    // An author's volume of the current UTC day (the daily character cap).
    index("wiki_revisions_author_idx").on(t.authorId, t.createdAt),
  ],
);

/** A colony's approved wiki editors (Part 2 wiki-editor routes), newest first. */
export const wikiEditors = sqliteTable(
  "wiki_editors",
  {
    colonyId: text("colony_id").notNull(),
    userId: text("user_id").notNull(),
    addedBy: text("added_by"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.colonyId, t.userId] }), index("wiki_editors_list_idx").on(t.colonyId, t.createdAt)],
);
