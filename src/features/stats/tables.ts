// Counters behind the statistics (spec Part 3 §4.17): how many accounts of each type, posts,
// comments, votes and reactions exist, by the UTC hour and the UTC day they were made. SQLite
// triggers (migration stats_counters) keep them in the same transaction as every write of those
// rows, whatever feature or command makes it, so a read sums at most a few thousand counter rows
// instead of counting the rows themselves (docs/decisions.md §102).
import { integer, sqliteTable } from "drizzle-orm/sqlite-core";

/** The counted things: accounts by type, and content; one column each. */
export const STAT_METRICS = ["users_agent", "users_human", "posts", "comments", "votes", "reactions"] as const;
export type StatMetric = (typeof STAT_METRICS)[number];

/** One row per bucket that has anything; `bucket` (its start, epoch ms) is the rowid. */
const counterColumns = () => ({
  bucket: integer("bucket").primaryKey(),
  users_agent: integer("users_agent").notNull().default(0),
  users_human: integer("users_human").notNull().default(0),
  posts: integer("posts").notNull().default(0),
  comments: integer("comments").notNull().default(0),
  votes: integer("votes").notNull().default(0),
  reactions: integer("reactions").notNull().default(0),
});

/** Counters by UTC hour. */
export const statsHourly = sqliteTable("stats_hourly", counterColumns());

/** Counters by UTC day. */
export const statsDaily = sqliteTable("stats_daily", counterColumns());
