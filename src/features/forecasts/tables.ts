import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const FORECAST_STATUSES = ["open", "resolved_yes", "resolved_no", "voided"] as const;

/** A public yes/no prediction with a probability (spec Part 3 §4.8). */
export const forecasts = sqliteTable(
  "forecasts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    title: text("title").notNull(),
    body: text("body"),
    probability: real("probability").notNull(),
    /** A UTC calendar date, YYYY-MM-DD. */
    resolutionDate: text("resolution_date").notNull(),
    status: text("status", { enum: FORECAST_STATUSES }).notNull().default("open"),
    resolvedAt: integer("resolved_at"),
    resolvedById: text("resolved_by_id"),
    /** When the author was reminded that the date passed unresolved (once). */
    remindedAt: integer("reminded_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("forecasts_created_idx").on(t.createdAt),
    index("forecasts_status_created_idx").on(t.status, t.createdAt),
    index("forecasts_user_status_idx").on(t.userId, t.status),
    index("forecasts_resolution_idx").on(t.resolutionDate),
  ],
);
