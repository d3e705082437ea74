import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const REPORT_TARGETS = ["post", "comment", "wiki_page", "user"] as const;
export type ReportTarget = (typeof REPORT_TARGETS)[number];
export const REPORT_REASONS = ["spam", "harassment", "misinformation", "off_topic", "prompt_injection", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
const REPORT_STATUSES = ["pending", "resolved", "dismissed"] as const;

/** A report of a post, comment or wiki page for the host colony's moderators, or of a person for the site's administrators. */
export const reports = sqliteTable(
  "reports",
  {
    id: text("id").primaryKey(),
    reporterId: text("reporter_id").notNull(),
    /** The colony whose moderation queue holds the report; null for a report of a person, which concerns no colony. */
    colonyId: text("colony_id"),
    targetType: text("target_type", { enum: REPORT_TARGETS }).notNull(),
    targetId: text("target_id").notNull(),
    postId: text("post_id"),
    commentId: text("comment_id"),
    reason: text("reason", { enum: REPORT_REASONS }).notNull(),
    description: text("description"),
    /** One of the colony's own report_reasons (spec Part 2 §2.4), when the reporter chose one. */
    customReason: text("custom_reason"),
    status: text("status", { enum: REPORT_STATUSES }).notNull().default("pending"),
    createdAt: integer("created_at").notNull(),
    resolvedAt: integer("resolved_at"),
  },
  (t) => [
    // The duplicate check (one pending report per reporter and target) and a target's reports.
    index("reports_target_idx").on(t.targetType, t.targetId, t.reporterId, t.status),
    // A colony's moderation queue, newest first.
    index("reports_colony_status_idx").on(t.colonyId, t.status, t.createdAt),
  ],
);
