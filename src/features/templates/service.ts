// Post templates (spec Part 3 §4.12): a user's saved scaffolds for posts. Using one returns its
// fields and counts the use; it creates no post (docs/decisions.md §77).
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/service";
import { normaliseTags } from "../posts/content";
import type { POST_TYPES } from "../posts/tables";
import { postTemplates } from "./tables";

export type TemplateRow = typeof postTemplates.$inferSelect;
export const MAX_TEMPLATES = 50;

type PostType = (typeof POST_TYPES)[number];
interface TemplateFields {
  name?: string | null;
  title_template?: string | null;
  body_template?: string | null;
  post_type?: PostType | null;
  default_tags?: string[] | null;
}

/** The columns a create or update sets: the name trimmed (blank is 400), "" and [] clear a field, tags normalised as a post's. */
function columns(input: TemplateFields): Partial<TemplateRow> {
  const out: Partial<TemplateRow> = {};
  if (input.name != null) {
    const name = input.name.trim();
    if (!name) throw new ApiError(400, "INVALID_INPUT", "A template needs a name");
    out.name = name;
  }
  if (input.title_template !== undefined) out.titleTemplate = input.title_template || null;
  if (input.body_template !== undefined) out.bodyTemplate = input.body_template || null;
  if (input.post_type !== undefined) out.postType = input.post_type;
  if (input.default_tags !== undefined) {
    const tags = input.default_tags === null ? [] : normaliseTags(input.default_tags);
    out.defaultTags = tags.length ? tags : null;
  }
  return out;
}

export function listTemplates(ctx: Ctx, caller: Caller, page: Page): { items: TemplateRow[]; total: number } {
  const mine = eq(postTemplates.userId, caller.id);
  const total = ctx.db.select({ n: count() }).from(postTemplates).where(mine).get()!.n;
  const items = ctx.db.select().from(postTemplates).where(mine).orderBy(desc(postTemplates.createdAt), desc(postTemplates.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

export function createTemplate(ctx: Ctx, caller: Caller, input: TemplateFields & { name: string }): TemplateRow {
  const cols = columns(input);
  return inTransaction(ctx.db, (tx) => {
    const held = tx.select({ n: count() }).from(postTemplates).where(eq(postTemplates.userId, caller.id)).get()!.n;
    if (held >= MAX_TEMPLATES) throw new ApiError(400, "LIMIT_EXCEEDED", `You already have ${MAX_TEMPLATES} post templates, the most allowed`);
    const now = ctx.clock.now();
    return tx
      .insert(postTemplates)
      .values({ id: uuidv7(now), userId: caller.id, name: cols.name!, titleTemplate: null, bodyTemplate: null, postType: null, defaultTags: null, ...cols, createdAt: now, updatedAt: now })
      .returning()
      .get();
  });
}

const ownWhere = (caller: Caller, id: string) => and(eq(postTemplates.id, id), eq(postTemplates.userId, caller.id));
const missing = () => notFound("Post template not found");

/** The caller's template; someone else's is 404 like a missing one. */
export function getTemplate(ctx: Ctx, caller: Caller, id: string): TemplateRow {
  const row = ctx.db.select().from(postTemplates).where(ownWhere(caller, id)).get();
  if (!row) throw missing();
  return row;
}

export function updateTemplate(ctx: Ctx, caller: Caller, id: string, input: TemplateFields): TemplateRow {
  const cols = columns(input);
  const row = ctx.db
    .update(postTemplates)
    .set({ ...cols, updatedAt: ctx.clock.now() })
    .where(ownWhere(caller, id))
    .returning()
    .get();
  if (!row) throw missing();
  return row;
}

export function deleteTemplate(ctx: Ctx, caller: Caller, id: string): void {
  if (!ctx.db.delete(postTemplates).where(ownWhere(caller, id)).returning({ id: postTemplates.id }).get()) throw missing();
}

/** Counts a use and returns the template as it now stands. */
export function useTemplate(ctx: Ctx, caller: Caller, id: string): TemplateRow {
  const row = ctx.db
    .update(postTemplates)
    .set({ usageCount: sql`${postTemplates.usageCount} + 1` })
    .where(ownWhere(caller, id))
    .returning()
    .get();
  if (!row) throw missing();
  return row;
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(postTemplates).where(eq(postTemplates.userId, userId)).run();
}
