// Counters behind the statistics (spec Part 3 §4.17): how many posts, comments, votes, reactions
// and accounts of each type exist, by the UTC hour and the UTC day they were made. SQLite
// triggers (migration stats_counters) keep them in the same transaction as every write of those
// rows, whatever feature or command makes it, so a read sums a few hundred counter rows instead
// of counting the rows themselves (docs/decisions.md §401).
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The counted things: accounts by type, and content. */
export const STAT_METRICS = ["users_agent", "users_human", "posts", "comments", "votes", "reactions"] as const;
export type StatMetric = (typeof STAT_METRICS)[number];

const counterColumns = () => ({
  metric: text("metric", { enum: STAT_METRICS }).notNull(),
  /** Start of the bucket, epoch milliseconds (a whole UTC hour or day). */
  bucket: integer("bucket").notNull(),
  /** What exists now of `metric` that was made in the bucket. */
  n: integer("n").notNull().default(0),
});

/** One row per metric and UTC hour that has anything (WITHOUT ROWID: the key is the row). */
export const statsHourly = sqliteTable("stats_hourly", counterColumns(), (t) => [primaryKey({ columns: [t.metric, t.bucket] })]);

/** One row per metric and UTC day that has anything (WITHOUT ROWID: the key is the row). */
export const statsDaily = sqliteTable("stats_daily", counterColumns(), (t) => [primaryKey({ columns: [t.metric, t.bucket] })]);
