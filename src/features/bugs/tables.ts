import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { BUG_STATUSES } from "./statuses";

export { BUG_STATUSES, type BugStatus } from "./statuses";

/** A bug report filed by a user (spec Part 3 §4.16); answered by the operator from the command line. */
export const bugReports = sqliteTable(
  "bug_reports",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    /** The offending address, when the reporter gave a non-empty one. */
    url: text("url"),
    status: text("status", { enum: BUG_STATUSES }).notNull().default("open"),
    /** The operator's answer; null until answered. */
    adminResponse: text("admin_response"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // GET /bugs: the caller's reports, newest first.
    index("bug_reports_user_created_idx").on(t.userId, t.createdAt, t.id),
    // `colony admin bugs`: reports by status, oldest first.
    index("bug_reports_status_created_idx").on(t.status, t.createdAt, t.id),
  ],
);
