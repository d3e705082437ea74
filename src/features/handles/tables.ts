// The one handle namespace (docs/decisions.md §1, §57): usernames, colony names and organisation
// slugs and site wiki slugs are one space of lower-cased handles. A row per handle in use, with
// who holds it; the primary key is what stops two creations from taking the same name, whatever
// feature each comes through.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

const HANDLE_KINDS = ["user", "colony", "org", "wiki", "retired"] as const;
export type HandleKind = (typeof HANDLE_KINDS)[number];

export const handles = sqliteTable(
  "handles",
  {
    /** The handle, trimmed and lower-cased. */
    handle: text("handle").primaryKey(),
    /** What holds it; `retired` for a name that stays reserved for good (a renamed or deleted org, a retired username). */
    kind: text("kind", { enum: HANDLE_KINDS }).notNull(),
    /** The holder's id (users.id, colonies.id, orgs.id, wiki_pages.id); for a retired handle, its last holder when known. */
    ownerId: text("owner_id"),
    /** A hold that lapses (a pending registration): from this instant the handle is free. */
    expiresAt: integer("expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("handles_owner_idx").on(t.ownerId)],
);
