// The wiki (spec Part 3 §4.14; docs/decisions.md §83-§89): pages addressed by slug in the site
// wiki or a colony's, every edit a new revision (a full snapshot), history, one revision, what a
// revision changed, revert as a new revision, the delete rules, deleted pages and their restore,
// and the lock. Who may read and write which wiki is in access.ts; the editor list in editors.ts.
import { and, asc, count, desc, eq, isNotNull, isNull, ne, sql, type SQL } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, FieldError, forbidden, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { isUniqueViolation } from "../../db/client";
import type { Caller } from "../auth/caller";
import type { Actor } from "../colonies/service";
import * as colonies from "../colonies/service";
import * as handles from "../handles/service";
import * as posts from "../posts/service";
import { assertCanWrite, moderatesWiki, requireWikiModerator, resolveWiki, type Wiki } from "./access";
import { unifiedDiff, type RevisionDiff } from "./diff";
import { wikiPages, wikiRevisions } from "./tables";

export type PageRow = typeof wikiPages.$inferSelect;
export type RevisionRow = typeof wikiRevisions.$inferSelect;

/** Lowercase letters and digits in groups joined by single hyphens (`getting-started`). */
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 200;
export const TITLE_MAX = 300;
export const CONTENT_MAX = 200_000;
export const CATEGORY_MAX = 100;
export const SUMMARY_MAX = 500;
/** Characters of title and content one account may write per UTC day, over every revision (spec Part 3 §8). */
export const DAILY_CHARS = 2_000_000;
/** Slugs that are routes of their own (GET /wiki/deleted). */
const RESERVED_SLUGS = new Set(["deleted"]);

// ---------------------------------------------------------------------------------------------
// Lookups

const inWiki = (wiki: Wiki): SQL => (wiki ? eq(wikiPages.colonyId, wiki.id) : isNull(wikiPages.colonyId));

/** The page of `slug` in the wiki, live or deleted, or null (through the slug index, whose key is this coalesce). */
function pageOf(ctx: Ctx, wiki: Wiki, slug: string): PageRow | null {
  return ctx.db.select().from(wikiPages).where(and(sql`coalesce(${wikiPages.colonyId}, '') = ${wiki?.id ?? ""}`, eq(wikiPages.slug, slug))).get() ?? null;
}

/** The live page of `slug` in the wiki, else 404 NOT_FOUND (a deleted page is gone to every read). */
function livePage(ctx: Ctx, wiki: Wiki, slug: string): PageRow {
  const page = pageOf(ctx, wiki, slug);
  if (!page || page.deletedAt !== null) throw notFound("Wiki page not found");
  return page;
}

/** A page and its wiki as a read resolves them: the wiki readable (else 404), the page live (else 404). */
export function readPage(ctx: Ctx, caller: Actor | null, colonyRef: string | null | undefined, slug: string): { wiki: Wiki; page: PageRow } {
  const wiki = resolveWiki(ctx, caller, colonyRef);
  return { wiki, page: livePage(ctx, wiki, slug) };
}

// ---------------------------------------------------------------------------------------------
// Input

/** Trimmed text, null when empty. */
const optional = (v: string | null | undefined) => (v == null ? null : v.trim() || null);

function cleanTitle(raw: string): string {
  const title = raw.trim();
  if (!title) throw new FieldError(["body", "title"], "title must not be blank", raw);
  return title;
}

/**
 * The blocked-phrase rule of a colony's wiki (docs/decisions.md §86): a title, content or
 * summary made only of the colony's banned words is 400 CONTENT_BLOCKED_PHRASE; so is one holding
 * any of them when the colony rejects banned words outright (`banned_words_action: reject`), as
 * its posts and comments are. The site wiki has no list.
 */
function checkBlockedPhrases(wiki: Wiki, fields: Record<string, string | null | undefined>): void {
  if (!wiki) return;
  const rejects = colonies.settingsOf(wiki).banned_words_action === "reject";
  for (const [name, text] of Object.entries(fields)) {
    if (!text) continue;
    const word = posts.onlyBannedWordsIn(wiki, text) ?? (rejects ? posts.bannedWordIn(wiki, text) : null);
    if (word) throw new ApiError(400, "CONTENT_BLOCKED_PHRASE", `This colony's wiki does not accept a ${name} ${rejects ? "containing" : "made only of"} the blocked phrase "${word}"`);
  }
}

/** Start of the current UTC day. */
const utcDayStart = (now: number) => Math.floor(now / DAY) * DAY;

/**
 * The daily volume cap (spec Part 3 §8): 2,000,000 characters of title and content per account
 * and UTC day, over every revision written (creates, edits, reverts). 429 RATE_LIMIT_WIKI_CHARS_DAILY
 * with the seconds until the next UTC midnight (docs/decisions.md §89).
 */
function checkDailyVolume(ctx: Ctx, caller: Caller, chars: number): void {
  // Rate limits switched off (COLONY_RATE_LIMIT_MULTIPLIER=0) switch this one off too.
  if (!ctx.limits.enabled) return;
  const now = ctx.clock.now();
  const start = utcDayStart(now);
  const used =
    ctx.db
      .select({ n: sql<number>`coalesce(sum(${wikiRevisions.chars}), 0)` })
      .from(wikiRevisions)
      .where(and(eq(wikiRevisions.authorId, caller.id), sql`${wikiRevisions.createdAt} >= ${start}`))
      .get()?.n ?? 0;
  if (used + chars <= DAILY_CHARS) return;
  const retry = Math.max(1, Math.ceil((start + DAY - now) / 1000));
  throw new ApiError(
    429,
    "RATE_LIMIT_WIKI_CHARS_DAILY",
    `Rate limit exceeded for wiki_chars_daily: ${DAILY_CHARS} characters of title and content per UTC day (${used} written today, this revision has ${chars}). Try again in ${retry} seconds.`,
    { retry_after: retry },
    { "Retry-After": String(retry) },
  );
}

// ---------------------------------------------------------------------------------------------
// List

interface ListInput {
  colony?: string;
  category?: string;
  q?: string;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => "\\" + c);

/** A wiki's live pages, alphabetical by title; `category` is an exact match, `q` a case-insensitive substring of title or content. */
export function listPages(ctx: Ctx, caller: Actor | null, input: ListInput, page: Page): { wiki: Wiki; items: PageRow[]; total: number } {
  const wiki = resolveWiki(ctx, caller, input.colony);
  const where: SQL[] = [inWiki(wiki), isNull(wikiPages.deletedAt)];
  const category = input.category?.trim();
  if (category) where.push(eq(wikiPages.category, category));
  const q = input.q?.trim();
  if (q) {
    const like = `%${likeEscape(q.toLowerCase())}%`;
    where.push(sql`(lower(${wikiPages.title}) like ${like} escape '\\' or lower(${wikiPages.content}) like ${like} escape '\\')`);
  }
  const cond = and(...where);
  const total = ctx.db.select({ n: count() }).from(wikiPages).where(cond).get()?.n ?? 0;
  const items = ctx.db
    .select()
    .from(wikiPages)
    .where(cond)
    .orderBy(sql`${wikiPages.title} collate nocase`, asc(wikiPages.slug))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { wiki, items, total };
}

// ---------------------------------------------------------------------------------------------
// Create and edit

interface CreateInput {
  title: string;
  slug: string;
  content?: string;
  category?: string | null;
  summary?: string | null;
  colony?: string | null;
}

function newRevision(page: PageRow, number: number, authorId: string, summary: string | null, now: number): typeof wikiRevisions.$inferInsert {
  return {
    id: uuidv7(now),
    pageId: page.id,
    number,
    title: page.title,
    content: page.content,
    category: page.category,
    summary,
    authorId,
    chars: page.title.length + page.content.length,
    createdAt: now,
  };
}

/**
 * Creates a page with its first revision. Checks in order: the wiki (404), the write gate (403),
 * the title (422), the slug reserved or taken in this wiki, deleted pages included (409), blocked
 * phrases (400), the daily volume (429); a site page's slug is a handle (docs/decisions.md §83),
 * claimed in the insert's transaction (409 when a user, colony or organisation holds it).
 */
export function createPage(ctx: Ctx, caller: Caller, input: CreateInput): { wiki: Wiki; page: PageRow } {
  const wiki = resolveWiki(ctx, caller, input.colony);
  assertCanWrite(ctx, caller, wiki);
  const title = cleanTitle(input.title);
  const slug = input.slug;
  if (!SLUG_RE.test(slug) || slug.length > SLUG_MAX) throw new FieldError(["body", "slug"], "slug must be lowercase letters and digits separated by single hyphens", slug);
  const content = input.content ?? "";
  const category = optional(input.category);
  const summary = optional(input.summary);
  if (RESERVED_SLUGS.has(slug)) throw conflict(`The slug "${slug}" is reserved`);
  if (pageOf(ctx, wiki, slug)) throw conflict(`The slug "${slug}" is taken in this wiki`);
  checkBlockedPhrases(wiki, { title, content, summary });
  checkDailyVolume(ctx, caller, title.length + content.length);
  const now = ctx.clock.now();
  const page: PageRow = {
    id: uuidv7(now),
    colonyId: wiki?.id ?? null,
    slug,
    title,
    content,
    category,
    createdBy: caller.id,
    updatedBy: caller.id,
    revisionCount: 1,
    lockedAt: null,
    lockedBy: null,
    deletedAt: null,
    deletedBy: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    ctx.db.transaction((tx) => {
      if (!wiki) {
        try {
          handles.claimHandle(ctx, tx, slug, { kind: "wiki", id: page.id });
        } catch (err) {
          if (err instanceof handles.HandleTaken) throw conflict(`The slug "${slug}" is taken: site wiki slugs share one namespace with usernames, colony names and organisations`);
          throw err;
        }
      }
      tx.insert(wikiPages).values(page).run();
      tx.insert(wikiRevisions).values(newRevision(page, 1, caller.id, summary, now)).run();
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`The slug "${slug}" is taken in this wiki`);
    throw err;
  }
  return { wiki, page };
}

interface UpdateInput {
  title?: string | null;
  content?: string | null;
  category?: string | null;
  summary?: string | null;
  base_revision?: number | null;
}

/** The gate every change of a page's text passes: the wiki's write gate, then the lock (403). */
function assertEditable(ctx: Ctx, caller: Caller, wiki: Wiki, page: PageRow): void {
  assertCanWrite(ctx, caller, wiki);
  if (page.lockedAt !== null) throw forbidden("This page is locked: nobody can edit it until a moderator unlocks it");
}

/** Appends a revision that makes the page `next` (title, content, category), in one transaction. */
function appendRevision(ctx: Ctx, caller: Caller, page: PageRow, next: Pick<PageRow, "title" | "content" | "category">, summary: string | null): PageRow {
  checkDailyVolume(ctx, caller, next.title.length + next.content.length);
  const now = Math.max(ctx.clock.now(), page.updatedAt);
  const number = page.revisionCount + 1;
  const updated: PageRow = { ...page, ...next, updatedBy: caller.id, revisionCount: number, updatedAt: now };
  ctx.db.transaction((tx) => {
    tx.insert(wikiRevisions).values(newRevision(updated, number, caller.id, summary, now)).run();
    tx.update(wikiPages)
      .set({ title: updated.title, content: updated.content, category: updated.category, updatedBy: caller.id, revisionCount: number, updatedAt: now })
      .where(eq(wikiPages.id, page.id))
      .run();
  });
  return updated;
}

/**
 * Edits a page: the fields sent change, a revision is appended, the last write wins. An edit
 * naming none of title, content and category is 400; `base_revision` other than the page's latest
 * revision number is 409 CONFLICT (docs/decisions.md §88).
 */
export function updatePage(ctx: Ctx, caller: Caller, colonyRef: string | null | undefined, slug: string, input: UpdateInput): { wiki: Wiki; page: PageRow } {
  const { wiki, page } = readPage(ctx, caller, colonyRef, slug);
  assertEditable(ctx, caller, wiki, page);
  if (input.title == null && input.content == null && input.category === undefined) throw invalid("Send at least one of title, content and category to change");
  if (input.base_revision != null && input.base_revision !== page.revisionCount) {
    throw conflict(`The page changed since revision ${input.base_revision}: it is at revision ${page.revisionCount}; read it again and reapply your edit`);
  }
  const next = {
    title: input.title != null ? cleanTitle(input.title) : page.title,
    content: input.content ?? page.content,
    category: input.category === undefined ? page.category : optional(input.category),
  };
  const summary = optional(input.summary);
  checkBlockedPhrases(wiki, { title: input.title != null ? next.title : null, content: input.content, summary });
  return { wiki, page: appendRevision(ctx, caller, page, next, summary) };
}

// ---------------------------------------------------------------------------------------------
// Revisions

/** A page's revisions, newest first. */
export function history(ctx: Ctx, caller: Actor | null, colonyRef: string | null | undefined, slug: string, page: Page): { items: RevisionRow[]; total: number } {
  const { page: row } = readPage(ctx, caller, colonyRef, slug);
  const items = ctx.db.select().from(wikiRevisions).where(eq(wikiRevisions.pageId, row.id)).orderBy(desc(wikiRevisions.number)).limit(page.limit).offset(page.offset).all();
  return { items, total: row.revisionCount };
}

/** One revision of the page of `slug` (404 when it belongs to another page or does not exist). */
export function revision(ctx: Ctx, caller: Actor | null, colonyRef: string | null | undefined, slug: string, revisionId: string): { page: PageRow; revision: RevisionRow } {
  const { page } = readPage(ctx, caller, colonyRef, slug);
  return { page, revision: revisionOf(ctx, page, revisionId) };
}

function revisionOf(ctx: Ctx, page: PageRow, revisionId: string): RevisionRow {
  const rev = ctx.db.select().from(wikiRevisions).where(and(eq(wikiRevisions.id, revisionId.toLowerCase()), eq(wikiRevisions.pageId, page.id))).get();
  if (!rev) throw notFound("Revision not found");
  return rev;
}

export interface RevisionChange extends RevisionDiff {
  revision: RevisionRow;
  previous: RevisionRow | null;
}

/** What a revision changed: its content against the revision before it (the first against an empty page). */
export function revisionDiff(ctx: Ctx, caller: Actor | null, colonyRef: string | null | undefined, slug: string, revisionId: string): RevisionChange {
  const { page, revision: rev } = revision(ctx, caller, colonyRef, slug, revisionId);
  const previous = rev.number > 1 ? (ctx.db.select().from(wikiRevisions).where(and(eq(wikiRevisions.pageId, page.id), eq(wikiRevisions.number, rev.number - 1))).get() ?? null) : null;
  const diff = unifiedDiff(
    `${previous?.id ?? "empty"}:${rev.id}`,
    page.slug,
    { label: previous ? `revision ${previous.number} (${previous.id})` : "empty page", text: previous?.content ?? "" },
    { label: `revision ${rev.number} (${rev.id})`, text: rev.content },
  );
  return { revision: rev, previous, ...diff };
}

/** Restores an earlier revision's title, content and category as a new revision (the edit rules apply). */
export function revert(ctx: Ctx, caller: Caller, colonyRef: string | null | undefined, slug: string, input: { revision_id: string; summary?: string | null }): { wiki: Wiki; page: PageRow } {
  const { wiki, page } = readPage(ctx, caller, colonyRef, slug);
  assertEditable(ctx, caller, wiki, page);
  const target = revisionOf(ctx, page, input.revision_id);
  const summary = optional(input.summary) ?? `Reverted to revision ${target.number}`;
  checkBlockedPhrases(wiki, { title: target.title, content: target.content, summary: optional(input.summary) });
  return { wiki, page: appendRevision(ctx, caller, page, { title: target.title, content: target.content, category: target.category }, summary) };
}

// ---------------------------------------------------------------------------------------------
// Delete, restore, lock

/**
 * Soft-deletes a page (docs/decisions.md §87). Moderators of the wiki (site admins; a colony's
 * moderators) delete any page; anyone else only a page they created and nobody else edited, while
 * they may write the wiki and the page is unlocked (403 otherwise). The slug stays taken.
 */
export function deletePage(ctx: Ctx, caller: Caller, colonyRef: string | null | undefined, slug: string): void {
  const { wiki, page } = readPage(ctx, caller, colonyRef, slug);
  if (!moderatesWiki(ctx, caller, wiki)) {
    if (page.createdBy !== caller.id) throw forbidden("Only the page's creator or a moderator can delete it");
    assertEditable(ctx, caller, wiki, page);
    const others = ctx.db.select({ id: wikiRevisions.id }).from(wikiRevisions).where(and(eq(wikiRevisions.pageId, page.id), ne(wikiRevisions.authorId, caller.id))).limit(1).get();
    if (others) throw forbidden("Others have edited this page: only a moderator can delete it now");
  }
  ctx.db.update(wikiPages).set({ deletedAt: ctx.clock.now(), deletedBy: caller.id }).where(eq(wikiPages.id, page.id)).run();
}

/** A wiki's deleted pages, most recently deleted first; its moderators only. */
export function deletedPages(ctx: Ctx, caller: Caller, colonyRef: string | null | undefined, page: Page): { wiki: Wiki; items: PageRow[]; total: number } {
  const wiki = resolveWiki(ctx, caller, colonyRef);
  requireWikiModerator(ctx, caller, wiki);
  const cond = and(inWiki(wiki), isNotNull(wikiPages.deletedAt));
  const total = ctx.db.select({ n: count() }).from(wikiPages).where(cond).get()?.n ?? 0;
  const items = ctx.db.select().from(wikiPages).where(cond).orderBy(desc(wikiPages.deletedAt), asc(wikiPages.slug)).limit(page.limit).offset(page.offset).all();
  return { wiki, items, total };
}

/** Brings a deleted page back as it was; its wiki's moderators only. 404 when no page has the slug, 409 when it is not deleted. */
export function restorePage(ctx: Ctx, caller: Caller, colonyRef: string | null | undefined, slug: string): { wiki: Wiki; page: PageRow } {
  const wiki = resolveWiki(ctx, caller, colonyRef);
  requireWikiModerator(ctx, caller, wiki);
  const page = pageOf(ctx, wiki, slug);
  if (!page) throw notFound("Wiki page not found");
  if (page.deletedAt === null) throw conflict("This page is not deleted");
  ctx.db.update(wikiPages).set({ deletedAt: null, deletedBy: null }).where(eq(wikiPages.id, page.id)).run();
  return { wiki, page: { ...page, deletedAt: null, deletedBy: null } };
}

/** Locks or unlocks a live page; its wiki's moderators only. Setting the state it has changes nothing. */
export function setLock(ctx: Ctx, caller: Caller, colonyRef: string | null | undefined, slug: string, locked: boolean): { wiki: Wiki; page: PageRow } {
  const { wiki, page } = readPage(ctx, caller, colonyRef, slug);
  requireWikiModerator(ctx, caller, wiki);
  if ((page.lockedAt !== null) === locked) return { wiki, page };
  const set = locked ? { lockedAt: ctx.clock.now(), lockedBy: caller.id } : { lockedAt: null, lockedBy: null };
  ctx.db.update(wikiPages).set(set).where(eq(wikiPages.id, page.id)).run();
  return { wiki, page: { ...page, ...set } };
}
