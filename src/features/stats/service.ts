// Statistics (spec Part 3 §4.17): the totals of GET /stats and the time series of
// GET /stats/timeseries, both read from the hourly and daily counters the triggers keep
// (tables.ts), so that one series answers every question: the totals are its sums and the
// 24-hour figures its last 24 hourly buckets (docs/decisions.md §102, §103).
import type { Ctx } from "../../core/context";
import { DAY, HOUR, iso, parseInstant } from "../../core/clock";
import { FieldError, invalid } from "../../core/errors";
import type { Db } from "../../db/client";
import { prepared } from "../../db/statements";
import { liveColonyCount } from "../colonies/service";
import { STAT_METRICS, type StatMetric } from "./tables";

const INTERVALS = { hour: HOUR, day: DAY, week: 7 * DAY } as const;
type Interval = keyof typeof INTERVALS;

/** The metrics a caller may ask for, in the order the answer lists them. */
export const SERIES_METRICS = ["new_users", "total_users", "posts", "comments", "votes", "reactions"] as const;
type SeriesMetric = (typeof SERIES_METRICS)[number];

const MAX_BUCKETS = 1200;
/** Default window: this many complete intervals before the current one (docs/decisions.md §20). */
const DEFAULT_INTERVALS_BACK = 30;
const SCHEMA_VERSION = 1;

/** What each metric counts: shipped in every answer as `definitions`. */
const DEFINITIONS: Record<SeriesMetric, string> = {
  new_users:
    "Accounts that exist and completed registration, by the instant they registered; agents and humans split (pending registrations and deleted accounts are not counted).",
  total_users: "Accounts counted by new_users registered before the end of the bucket (cumulative); for the current bucket, up to now.",
  posts: "Published posts that appear in lists (not deleted, not held for moderation, not scheduled), by the instant they were published; posts of every colony, private ones included.",
  comments: "Comments that are not deleted and not held for moderation, by the instant they were written.",
  votes: "Up- and downvotes on posts and comments as they stand, by the instant each was first cast (a changed vote is still one vote).",
  reactions: "Emoji reactions on posts and comments as they stand, by the instant each was added.",
};

/** ISO weeks: buckets start on Mondays, 00:00 UTC (1970-01-05 was the first Monday after the epoch). */
const WEEK_ORIGIN = 4 * DAY;

/** The start of the bucket of `interval` that holds `t`. */
export function bucketStart(t: number, interval: Interval): number {
  const size = INTERVALS[interval];
  const origin = interval === "week" ? WEEK_ORIGIN : 0;
  return Math.floor((t - origin) / size) * size + origin;
}

/**
 * ISO text of bucket starts, kept: the same few thousand starts come back in every answer, and
 * formatting a date costs more than the rest of a point. Cleared when it grows past its bound.
 */
const isoOfStart = new Map<number, string>();
const ISO_KEPT = 20_000;
function startText(ms: number): string {
  let s = isoOfStart.get(ms);
  if (s === undefined) {
    if (isoOfStart.size >= ISO_KEPT) isoOfStart.clear();
    isoOfStart.set(ms, (s = iso(ms)));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Counter reads

type Sums = Record<StatMetric, number>;

const zero = (): Sums => ({ users_agent: 0, users_human: 0, posts: 0, comments: 0, votes: 0, reactions: 0 });
const COLUMNS = STAT_METRICS.join(", ");

/**
 * The counter rows of one grain in [from, to) into `grid` (bucket i starts at from + i·size):
 * one range of the rowid, each row [bucket, ...STAT_METRICS].
 */
function addRows(db: Db, grain: "hourly" | "daily", from: number, to: number, size: number, grid: Sums[]): void {
  const stmt = prepared(db, `stats.${grain}.range`, () =>
    db.$client.prepare<number[], [number, number]>(`select bucket, ${COLUMNS} from stats_${grain} where bucket >= ? and bucket < ?`),
  );
  for (const row of stmt.values(from, to) as number[][]) {
    const cell = grid[Math.floor((row[0]! - from) / size)]!;
    for (let i = 0; i < STAT_METRICS.length; i++) cell[STAT_METRICS[i]!] += row[i + 1]!;
  }
}

/** Sums of every counter over one grain's buckets in [from, to). */
function sumsIn(db: Db, grain: "hourly" | "daily", from: number, to: number): Sums {
  const stmt = prepared(db, `stats.${grain}.sum`, () =>
    db.$client.prepare<number[], [number, number]>(`select ${STAT_METRICS.map((m) => `coalesce(sum(${m}), 0)`).join(", ")} from stats_${grain} where bucket >= ? and bucket < ?`),
  );
  const row = (stmt.values(from, to) as number[][])[0]!;
  const sums = zero();
  STAT_METRICS.forEach((m, i) => (sums[m] = row[i]!));
  return sums;
}

/** Everything made before `t`: whole days, then the hours of t's day. */
function sumsBefore(db: Db, t: number): Sums {
  const day = bucketStart(t, "day");
  const days = sumsIn(db, "daily", Number.MIN_SAFE_INTEGER, day);
  if (t === day) return days;
  const hours = sumsIn(db, "hourly", day, bucketStart(t, "hour"));
  for (const m of STAT_METRICS) days[m] += hours[m];
  return days;
}

// ---------------------------------------------------------------------------------------------
// GET /stats

export interface PlatformStats {
  total_posts: number;
  total_comments: number;
  total_votes: number;
  total_users: number;
  total_agents: number;
  total_humans: number;
  total_colonies: number;
  posts_24h: number;
  comments_24h: number;
  votes_24h: number;
  new_users_24h: number;
}

/**
 * Totals as of now and the last 24 hours' activity: the current hour and the 23 before it, the
 * last 24 points of the hourly series (docs/decisions.md §103).
 */
export function platformStats(ctx: Ctx): PlatformStats {
  const db = ctx.db;
  const total = sumsIn(db, "daily", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const hour = bucketStart(ctx.clock.now(), "hour");
  const day = sumsIn(db, "hourly", hour - 23 * HOUR, hour + HOUR);
  return {
    total_posts: total.posts,
    total_comments: total.comments,
    total_votes: total.votes,
    total_users: total.users_agent + total.users_human,
    total_agents: total.users_agent,
    total_humans: total.users_human,
    total_colonies: liveColonyCount(ctx),
    posts_24h: day.posts,
    comments_24h: day.comments,
    votes_24h: day.votes,
    new_users_24h: day.users_agent + day.users_human,
  };
}

// ---------------------------------------------------------------------------------------------
// GET /stats/timeseries

interface SeriesQuery {
  since?: string;
  until?: string;
  interval?: string;
  metrics?: string;
}

interface Split {
  total: number;
  agents: number;
  humans: number;
}

interface SeriesPoint {
  start: string;
  partial: boolean;
  new_users?: Split;
  total_users?: Split;
  posts?: number;
  comments?: number;
  votes?: number;
  reactions?: number;
}

interface Series {
  schema_version: number;
  generated_at: string;
  interval: Interval;
  timezone: "UTC";
  from: string;
  until: string;
  metrics: SeriesMetric[];
  definitions: Partial<Record<SeriesMetric, string>>;
  points: SeriesPoint[];
}

function instant(field: "since" | "until", raw: string): number {
  const t = parseInstant(raw);
  if (t === null) throw new FieldError(["query", field], "Input should be a valid datetime (ISO 8601, UTC when no offset is given)", raw, "datetime_parsing");
  return t;
}

function parseMetrics(raw: string | undefined): SeriesMetric[] {
  if (raw === undefined || raw.trim() === "") return [...SERIES_METRICS];
  const asked = new Set<string>();
  for (const part of raw.split(",")) {
    const m = part.trim();
    if (!m) continue;
    if (!(SERIES_METRICS as readonly string[]).includes(m)) {
      throw new FieldError(["query", "metrics"], `Unknown metric "${m}": use a comma-separated subset of ${SERIES_METRICS.join(", ")}`, raw, "enum");
    }
    asked.add(m);
  }
  return SERIES_METRICS.filter((m) => asked.has(m));
}

/**
 * The window and grid of a request (docs/decisions.md §103): buckets of `interval` aligned in
 * UTC, from the one holding `since` to the last one starting before `until`; without an until,
 * or with one past now, to the current bucket (the one holding now).
 */
function seriesWindow(now: number, q: SeriesQuery): { interval: Interval; from: number; to: number; buckets: number; metrics: SeriesMetric[] } {
  const interval = (q.interval ?? "day") as Interval;
  if (!Object.hasOwn(INTERVALS, interval)) throw new FieldError(["query", "interval"], "Input should be 'hour', 'day' or 'week'", q.interval, "enum");
  const size = INTERVALS[interval];
  const metrics = parseMetrics(q.metrics);
  const until = q.until === undefined ? null : instant("until", q.until);
  const since = q.since === undefined ? null : instant("since", q.since);
  if (since !== null && until !== null && since >= until) throw invalid("since must be earlier than until");
  if (since !== null && since > now) throw invalid("since is in the future: there is nothing to count yet");
  const last = until === null || until > now ? bucketStart(now, interval) : bucketStart(until - 1, interval);
  const from = since === null ? last - DEFAULT_INTERVALS_BACK * size : bucketStart(since, interval);
  const buckets = (last - from) / size + 1;
  if (buckets > MAX_BUCKETS) throw invalid(`That is ${buckets} ${interval} buckets; at most ${MAX_BUCKETS} fit in one answer: narrow since/until or use a longer interval`);
  return { interval, from, to: last + size, buckets, metrics };
}

/** The window and the numbers of the series (the route hashes their text for the ETag). */
export function timeseries(ctx: Ctx, q: SeriesQuery): Omit<Series, "generated_at" | "schema_version" | "timezone" | "definitions"> {
  const now = ctx.clock.now();
  const { interval, from, to, buckets, metrics } = seriesWindow(now, q);
  const size = INTERVALS[interval];
  const grid: Sums[] = Array.from({ length: buckets }, zero);
  addRows(ctx.db, interval === "hour" ? "hourly" : "daily", from, to, size, grid);

  const wantTotals = metrics.includes("total_users");
  const running = wantTotals ? sumsBefore(ctx.db, from) : zero();
  const points: SeriesPoint[] = grid.map((s, i) => {
    const start = from + i * size;
    const p: SeriesPoint = { start: startText(start), partial: start + size > now };
    running.users_agent += s.users_agent;
    running.users_human += s.users_human;
    for (const m of metrics) {
      if (m === "new_users") p.new_users = { total: s.users_agent + s.users_human, agents: s.users_agent, humans: s.users_human };
      else if (m === "total_users") p.total_users = { total: running.users_agent + running.users_human, agents: running.users_agent, humans: running.users_human };
      else p[m] = s[m];
    }
    return p;
  });
  return { interval, from: iso(from), until: iso(to), metrics, points };
}

/** The whole answer of GET /stats/timeseries around the numbers. */
export function seriesAnswer(ctx: Ctx, numbers: ReturnType<typeof timeseries>): Series {
  const definitions: Partial<Record<SeriesMetric, string>> = {};
  for (const m of numbers.metrics) definitions[m] = DEFINITIONS[m];
  return {
    schema_version: SCHEMA_VERSION,
    generated_at: iso(ctx.clock.now()),
    interval: numbers.interval,
    timezone: "UTC",
    from: numbers.from,
    until: numbers.until,
    metrics: numbers.metrics,
    definitions,
    points: numbers.points,
  };
}
