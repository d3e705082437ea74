// Forecasts (spec Part 3 §4.8): public yes/no predictions with a probability, resolved once by
// their author or an admin, scored by the Brier score (docs/decisions.md §80). The author is
// reminded, once, when the resolution date passes unresolved.
import { and, asc, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { DAY, iso, parseInstant } from "../../core/clock";
import { ApiError, forbidden, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/service";
import { getActiveUser } from "../users/service";
import { FORECAST_STATUSES, forecasts } from "./tables";

export type ForecastRow = typeof forecasts.$inferSelect;
export const REMIND_JOB = "forecast_reminder";
export const LIST_STATUSES = [...FORECAST_STATUSES, "resolved"] as const;
export const SORTS = ["newest", "resolution_date", "probability"] as const;
export const OUTCOMES = ["yes", "no", "void", "voided"] as const;
export const MIN_RESOLVED = 5;
/** Calibration buckets: ten of width 0.1 by predicted probability ([0.0, 0.1) … [0.9, 1.0]). */
const BUCKET_WIDTH = 0.1;

const today = (now: number) => iso(now).slice(0, 10);
/** The instant a resolution date has passed: the next UTC midnight. */
const datePassedAt = (date: string) => parseInstant(date)! + DAY;

export function createForecast(ctx: Ctx, caller: Caller, input: { title: string; body?: string | null; probability: number; resolution_date: string }): ForecastRow {
  const title = input.title.trim();
  if ([...title].length < 10) throw new ApiError(400, "INVALID_INPUT", "A forecast's title is 10 to 300 characters");
  const date = input.resolution_date;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || parseInstant(date) === null)
    throw new ApiError(400, "INVALID_INPUT", "resolution_date is a calendar date, YYYY-MM-DD");
  const now = ctx.clock.now();
  if (date <= today(now)) throw new ApiError(400, "INVALID_INPUT", "resolution_date must be in the future (after today, UTC)");
  return inTransaction(ctx.db, (tx) => {
    const row = tx
      .insert(forecasts)
      .values({ id: uuidv7(now), userId: caller.id, title, body: input.body?.trim() || null, probability: input.probability, resolutionDate: date, createdAt: now })
      .returning()
      .get();
    ctx.jobs.schedule(REMIND_JOB, datePassedAt(date), { forecast_id: row.id }, tx);
    return row;
  });
}

interface ListQuery {
  status?: (typeof LIST_STATUSES)[number];
  author_id?: string;
  sort?: (typeof SORTS)[number];
}

export function listForecasts(ctx: Ctx, q: ListQuery, page: Page): { items: ForecastRow[]; total: number } {
  const where: (SQL | undefined)[] = [];
  if (q.status === "resolved") where.push(inArray(forecasts.status, ["resolved_yes", "resolved_no"]));
  else if (q.status) where.push(eq(forecasts.status, q.status));
  if (q.author_id !== undefined) where.push(eq(forecasts.userId, getActiveUser(ctx, q.author_id).id));
  const cond = and(...where);
  const order =
    q.sort === "resolution_date"
      ? [asc(forecasts.resolutionDate), desc(forecasts.createdAt)]
      : q.sort === "probability"
        ? [desc(forecasts.probability), desc(forecasts.createdAt)]
        : [desc(forecasts.createdAt), desc(forecasts.id)];
  const total = ctx.db.select({ n: count() }).from(forecasts).where(cond).get()!.n;
  const items = ctx.db.select().from(forecasts).where(cond).orderBy(...order).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

export function getForecast(ctx: Ctx, id: string): ForecastRow {
  const row = ctx.db.select().from(forecasts).where(eq(forecasts.id, id)).get();
  if (!row) throw notFound("Forecast not found");
  return row;
}

/** Resolves an open forecast, once: its author or a site admin (403 otherwise); a resolved one is 400. */
export function resolveForecast(ctx: Ctx, caller: Caller, id: string, outcome: (typeof OUTCOMES)[number]): ForecastRow {
  const f = getForecast(ctx, id);
  if (f.userId !== caller.id && !caller.isAdmin) throw forbidden("Only the forecast's author or an admin may resolve it");
  const status = outcome === "yes" ? "resolved_yes" : outcome === "no" ? "resolved_no" : "voided";
  const now = ctx.clock.now();
  const row = ctx.db
    .update(forecasts)
    .set({ status, resolvedAt: now, resolvedById: caller.id })
    .where(and(eq(forecasts.id, id), eq(forecasts.status, "open")))
    .returning()
    .get();
  if (!row) throw new ApiError(400, "INVALID_INPUT", "This forecast is already resolved; a resolution cannot be changed");
  ctx.jobs.cancel(REMIND_JOB, { forecast_id: id });
  return row;
}

/**
 * The reminder job: the resolution date passed and the forecast is still open, so its author is
 * told, once (a compare-and-set on reminded_at).
 */
export function remindAuthor(ctx: Ctx, id: string): void {
  inTransaction(ctx.db, (tx) => {
    const row = tx
      .update(forecasts)
      .set({ remindedAt: ctx.clock.now() })
      .where(and(eq(forecasts.id, id), eq(forecasts.status, "open"), sql`${forecasts.remindedAt} is null`))
      .returning()
      .get();
    if (!row) return;
    ctx.events.emit(tx, {
      type: "forecast_resolution_due",
      actorId: null,
      subject: { type: "forecast", id: row.id },
      payload: { forecast_id: row.id, author_id: row.userId, title: row.title, resolution_date: row.resolutionDate },
    });
  });
}

/** Yes/no resolved forecasts' outcome as 1/0 (SQL). */
const OUTCOME = sql`(case when ${forecasts.status} = 'resolved_yes' then 1.0 else 0.0 end)`;
/** Whether the call (above 0.5 is yes, below is no, exactly 0.5 calls nothing) matched. */
const CORRECT = sql<number>`sum(case when (${forecasts.probability} > 0.5 and ${forecasts.status} = 'resolved_yes') or (${forecasts.probability} < 0.5 and ${forecasts.status} = 'resolved_no') then 1 else 0 end)`;
const RESOLVED = inArray(forecasts.status, ["resolved_yes", "resolved_no"]);

interface Bucket {
  range_low: number;
  range_high: number;
  predicted_avg: number;
  actual_rate: number;
  count: number;
}

export function calibration(ctx: Ctx, userRef: string) {
  const user = getActiveUser(ctx, userRef);
  const mine = and(eq(forecasts.userId, user.id), RESOLVED);
  const agg = ctx.db
    .select({ n: count(), brier: sql<number | null>`avg((${forecasts.probability} - ${OUTCOME}) * (${forecasts.probability} - ${OUTCOME}))`, correct: CORRECT })
    .from(forecasts)
    .where(mine)
    .get()!;
  // p * 10 plus a hair, so 0.3 (2.9999… in binary) lands in [0.3, 0.4) as written.
  const bucket = sql<number>`min(cast(${forecasts.probability} * 10 + 1e-9 as integer), 9)`;
  const rows = ctx.db
    .select({ b: bucket, n: count(), predicted: sql<number>`avg(${forecasts.probability})`, actual: sql<number>`avg(${OUTCOME})` })
    .from(forecasts)
    .where(mine)
    .groupBy(bucket)
    .orderBy(bucket)
    .all();
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  const buckets: Bucket[] = rows.map((r) => ({
    range_low: round(r.b * BUCKET_WIDTH),
    range_high: round((r.b + 1) * BUCKET_WIDTH),
    predicted_avg: round(r.predicted),
    actual_rate: round(r.actual),
    count: r.n,
  }));
  return { user, total_resolved: agg.n, brier_score: agg.n ? round(agg.brier!) : null, correct_count: agg.correct ?? 0, buckets };
}

/** Authors with at least five yes/no resolutions, lowest Brier score first. */
export function leaderboard(ctx: Ctx, page: Page): { userId: string; brier: number; n: number; correct: number }[] {
  const brier = sql<number>`avg((${forecasts.probability} - ${OUTCOME}) * (${forecasts.probability} - ${OUTCOME}))`;
  return ctx.db
    .select({ userId: forecasts.userId, brier, n: count(), correct: CORRECT })
    .from(forecasts)
    .where(RESOLVED)
    .groupBy(forecasts.userId)
    .having(sql`count(*) >= ${MIN_RESOLVED}`)
    .orderBy(asc(brier), desc(count()), asc(forecasts.userId))
    .limit(page.limit)
    .offset(page.offset)
    .all()
    .map((r) => ({ ...r, brier: Math.round(r.brier * 10_000) / 10_000 }));
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(forecasts).where(eq(forecasts.userId, userId)).run();
}
