// Bug reports (spec Part 3 §4.16): a user files a report (title, description, optional address)
// and sees their own, newest first, with the status and answer the operator gave. Operators list
// and answer reports from the command line (`colony admin bugs`, `colony admin answer-bug`).
import { asc, count, desc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { FieldError, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/caller";
import { bugReports, type BugStatus } from "./tables";

export type BugReportRow = typeof bugReports.$inferSelect;

export const TITLE_MIN = 3;
export const TITLE_MAX = 200;
export const DESCRIPTION_MIN = 10;
export const DESCRIPTION_MAX = 5000;
export const URL_MAX = 500;
const RESPONSE_MAX = 5000;

interface NewBugReport {
  title: string;
  description: string;
  url?: string | null;
}

/** `value` stripped of surrounding white space, within [min, max] characters, else a 422 on `field`. */
function stripped(field: string, value: string, min: number, max: number): string {
  const v = value.trim();
  if (v.length < min) throw new FieldError(["body", field], `String should have at least ${min} characters (after surrounding spaces are removed)`, value, "string_too_short");
  if (v.length > max) throw new FieldError(["body", field], `String should have at most ${max} characters`, value, "string_too_long");
  return v;
}

/** Files a report; title and description are stripped, an empty address is not kept. */
export function fileReport(ctx: Ctx, caller: Caller, input: NewBugReport): BugReportRow {
  const title = stripped("title", input.title, TITLE_MIN, TITLE_MAX);
  const description = stripped("description", input.description, DESCRIPTION_MIN, DESCRIPTION_MAX);
  const url = input.url?.trim() || null;
  if (url && url.length > URL_MAX) throw new FieldError(["body", "url"], `String should have at most ${URL_MAX} characters`, input.url, "string_too_long");
  const now = ctx.clock.now();
  return ctx.db
    .insert(bugReports)
    .values({ id: uuidv7(now), userId: caller.id, title, description, url, status: "open", adminResponse: null, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** The caller's own reports, newest first. */
export function listOwn(ctx: Ctx, caller: Caller, page: Page): { items: BugReportRow[]; total: number } {
  const mine = eq(bugReports.userId, caller.id);
  const items = ctx.db.select().from(bugReports).where(mine).orderBy(desc(bugReports.createdAt), desc(bugReports.id)).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(bugReports).where(mine).get()!.n;
  return { items, total };
}

// ---------------------------------------------------------------------------------------------
// The operator's side (ops/admin.ts)

/** Reports for triage, oldest first: with a status, only those; without, every report. */
export function listForTriage(ctx: Ctx, status: BugStatus | null, limit: number): BugReportRow[] {
  const q = ctx.db.select().from(bugReports);
  return (status ? q.where(eq(bugReports.status, status)) : q).orderBy(asc(bugReports.createdAt), asc(bugReports.id)).limit(limit).all();
}


/**
 * Sets a report's status and/or the answer its reporter reads (an empty answer clears it); at
 * least one of the two. The reporter sees the change in GET /bugs.
 */
export function answerReport(ctx: Ctx, id: string, change: { status?: BugStatus; response?: string }): BugReportRow {
  if (change.status === undefined && change.response === undefined) throw invalid("Give a status, a response or both");
  const set: Partial<BugReportRow> = { updatedAt: ctx.clock.now() };
  if (change.status !== undefined) set.status = change.status;
  if (change.response !== undefined) {
    const text = change.response.trim();
    if (text.length > RESPONSE_MAX) throw invalid(`The response is longer than ${RESPONSE_MAX} characters`);
    set.adminResponse = text || null;
  }
  const row = isUuid(id) ? ctx.db.update(bugReports).set(set).where(eq(bugReports.id, id.toLowerCase())).returning().get() : undefined;
  if (!row) throw notFound(`No bug report with id ${id}`);
  return row;
}

/** Drops a deleted account's reports (account_deleted, after commit). */
export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(bugReports).where(eq(bugReports.userId, userId)).run();
}
