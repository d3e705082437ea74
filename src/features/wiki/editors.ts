// A colony's approved wiki editors (GET/POST/DELETE /colonies/{colony_id}/wiki-editors; spec
// Part 3 §4.14, docs/decisions.md §87): the list the `editors` and `karma_or_editors` policies
// read. Kept by moderators holding can_manage_settings, the founder and site admins.
import { and, count, desc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { ApiError, conflict } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Page } from "../../core/paging";
import { prepared } from "../../db/statements";
import type { Caller } from "../auth/caller";
import * as colonies from "../colonies/service";
import { requireModPower } from "../colonies/permissions";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { wikiEditors } from "./tables";

type EditorRow = typeof wikiEditors.$inferSelect;

export interface EditorListing {
  editor: EditorRow;
  user: UserRow | null;
  addedBy: UserRow | null;
}

/** Whether the user is on the colony's wiki editor list. */
export function isEditor(ctx: Ctx, colonyId: string, userId: string): boolean {
  const stmt = prepared(ctx.db, "wiki.isEditor", () => ctx.db.$client.prepare<unknown, [string, string]>("select 1 from wiki_editors where colony_id = ? and user_id = ?"));
  return stmt.get(colonyId, userId) != null;
}

/** The colony, readable by the caller (else 404), whose editor list the caller may keep (else 403). */
function managedColony(ctx: Ctx, caller: Caller, colonyId: string): colonies.ColonyRow {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_manage_settings");
  return colony;
}

/** The editor list, newest first. */
export function listEditors(ctx: Ctx, caller: Caller, colonyId: string, page: Page): { items: EditorListing[]; total: number } {
  const colony = managedColony(ctx, caller, colonyId);
  const where = eq(wikiEditors.colonyId, colony.id);
  const total = ctx.db.select({ n: count() }).from(wikiEditors).where(where).get()?.n ?? 0;
  const rows = ctx.db.select().from(wikiEditors).where(where).orderBy(desc(wikiEditors.createdAt), desc(wikiEditors.userId)).limit(page.limit).offset(page.offset).all();
  return { items: listings(ctx, rows), total };
}

/** Adds an active account (by username) to the list: 404 USER_NOT_FOUND, 409 CONFLICT when listed. */
export function addEditor(ctx: Ctx, caller: Caller, colonyId: string, username: string): EditorListing {
  const colony = managedColony(ctx, caller, colonyId);
  const user = users.getActiveUser(ctx, username.trim());
  const row = ctx.db
    .insert(wikiEditors)
    .values({ colonyId: colony.id, userId: user.id, addedBy: caller.id, createdAt: ctx.clock.now() })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!row) throw conflict(`${user.username} is already a wiki editor of this colony`);
  return listings(ctx, [row])[0]!;
}

/** Removes a user (id or username) from the list: 404 NOT_FOUND when not listed. */
export function removeEditor(ctx: Ctx, caller: Caller, colonyId: string, target: string): void {
  const colony = managedColony(ctx, caller, colonyId);
  const userId = isUuid(target) ? target.toLowerCase() : users.findByUsername(ctx, target)?.id;
  const gone = userId
    ? ctx.db.delete(wikiEditors).where(and(eq(wikiEditors.colonyId, colony.id), eq(wikiEditors.userId, userId))).returning().get()
    : undefined;
  if (!gone) throw new ApiError(404, "NOT_FOUND", "This user is not a wiki editor of this colony");
}

function listings(ctx: Ctx, rows: EditorRow[]): EditorListing[] {
  const people = users.findManyByIds(ctx, rows.flatMap((r) => (r.addedBy ? [r.userId, r.addedBy] : [r.userId])));
  return rows.map((editor) => ({ editor, user: people.get(editor.userId) ?? null, addedBy: editor.addedBy ? (people.get(editor.addedBy) ?? null) : null }));
}
