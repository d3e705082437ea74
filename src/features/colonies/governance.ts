// The colony writes that governance (features/moderation: mod invites, ownership transfers, the
// colony's icon and header, modmail) needs, so that feature never touches the colony tables:
// granting a moderating role, handing the founder role over, the image URLs, and the roster of
// moderators. Call the writes inside the action's transaction.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { makeFounder } from "./moderator-exits";
import type { Tx } from "../../db/client";
import { memberRow, MODERATOR_ROLES, recountMembers, type ColonyRow } from "./service";
import { colonies, colonyMembers } from "./tables";

/**
 * Makes `userId` a moderator or colony admin with `permissions` (null: the role's defaults),
 * approved; a non-member joins the colony with that role. Returns whether a membership was
 * created. The caller checks that this is not a demotion.
 */
export function grantModRole(ctx: Ctx, tx: Tx, colony: ColonyRow, userId: string, role: "moderator" | "admin", permissions: string[] | null): { joined: boolean } {
  const now = ctx.clock.now();
  const existing = memberRow(ctx, colony.id, userId);
  if (existing) {
    tx.update(colonyMembers)
      .set({ role, permissions, approved: true, approvedAt: existing.approvedAt ?? now, updatedAt: now })
      .where(and(eq(colonyMembers.colonyId, colony.id), eq(colonyMembers.userId, userId)))
      .run();
    return { joined: false };
  }
  tx.insert(colonyMembers).values({ colonyId: colony.id, userId, role, permissions, approved: true, joinedAt: now, approvedAt: now, updatedAt: now }).run();
  recountMembers(tx, colony.id, now);
  return { joined: true };
}

/**
 * Hands the colony to `toId`: they become founder_moderator (every permission) and the colony's
 * created_by; the previous founder stays on as a colony admin (docs/decisions.md §35).
 */
export function transferFounder(ctx: Ctx, tx: Tx, colony: ColonyRow, fromId: string, toId: string): void {
  const now = ctx.clock.now();
  tx.update(colonyMembers)
    .set({ role: "admin", permissions: null, approved: true, updatedAt: now })
    .where(and(eq(colonyMembers.colonyId, colony.id), eq(colonyMembers.userId, fromId)))
    .run();
  makeFounder(tx, colony.id, toId, now);
}

export type ColonyImages = { iconUrl: string | null; iconUrl96: string | null; iconUrl256: string | null } | { headerUrl: string | null };

/** Sets (or clears, with nulls) the icon URLs or the header URL of a colony; returns the row. */
export function setColonyImages(ctx: Ctx, tx: Tx, colonyId: string, images: ColonyImages): ColonyRow {
  return tx
    .update(colonies)
    .set({ ...images, updatedAt: ctx.clock.now() })
    .where(eq(colonies.id, colonyId))
    .returning()
    .get();
}

/** The approved members holding a moderating role (founder, colony admins, moderators), by join order. */
export function moderatorIds(ctx: Ctx, colonyId: string): string[] {
  return ctx.db
    .select({ id: colonyMembers.userId })
    .from(colonyMembers)
    .where(and(eq(colonyMembers.colonyId, colonyId), eq(colonyMembers.approved, true), inArray(colonyMembers.role, [...MODERATOR_ROLES])))
    .orderBy(colonyMembers.joinedAt, sql`${colonyMembers.userId}`)
    .all()
    .map((r) => r.id);
}
