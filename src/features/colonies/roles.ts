// Colony roles by moderators (spec Part 2 §3, §4.1; docs/decisions.md §31): promote a member to
// moderator, demote a moderator, remove a member. Every change writes its audit row and its event
// in one transaction; a refused request changes nothing.
//
// - Any moderator of the colony (or a site admin) may promote, demote and remove: the spec names
//   a "moderator caller", not a permission key (can_manage_mods governs mod invites).
// - A colony admin is never promoted or demoted here (403 FORBIDDEN); only the founder or a site
//   admin removes one.
// - The founder is demoted or removed by a site admin only (403 FORBIDDEN otherwise).
// - The last member holding a moderating role (moderator, founder or colony admin) is neither
//   demoted nor removed (409 CONFLICT).
// - Promoting a moderator (or the founder) and demoting a member change nothing (204); a pending
//   member is approved before being promoted (409 CONFLICT).
// - Demoting or removing someone who moderated is a moderator exit (moderator-exits.ts), in the
//   same transaction.
import { and, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, forbidden } from "../../core/errors";
import type { Tx } from "../../db/client";
import * as users from "../users/service";
import { recordModAction } from "./audit";
import { moderatorExited } from "./moderator-exits";
import { isFounder, requireModPower } from "./permissions";
import { getReadableColony, MODERATOR_ROLES, moderatorCount, recountMembers, targetMember, type Actor, type ColonyRow, type MemberRow } from "./service";
import { colonyMembers, type ColonyRole } from "./tables";

/** The colony (404 when unreadable), the caller's moderator standing (403) and the target membership (404). */
function resolve(ctx: Ctx, caller: Actor, colonyId: string, target: string): { colony: ColonyRow; m: MemberRow; username: string } {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller);
  const m = targetMember(ctx, colony.id, target);
  return { colony, m, username: users.findById(ctx, m.userId)?.username ?? "" };
}

function lastModeratorGuard(ctx: Ctx, colonyId: string, role: ColonyRole, what: string): void {
  if (MODERATOR_ROLES.includes(role) && moderatorCount(ctx, colonyId) <= 1) {
    throw conflict(`That user is the last moderator of this colony and cannot be ${what}: promote another moderator first`);
  }
}

function setRole(ctx: Ctx, colonyId: string, userId: string, role: ColonyRole, now: number, tx: Tx): void {
  tx.update(colonyMembers)
    .set({ role, permissions: null, updatedAt: now })
    .where(and(eq(colonyMembers.colonyId, colonyId), eq(colonyMembers.userId, userId)))
    .run();
}

/** Makes a member a moderator with the moderator defaults; they are told. */
export function promoteMember(ctx: Ctx, caller: Actor, colonyId: string, target: string): void {
  const { colony, m, username } = resolve(ctx, caller, colonyId, target);
  if (m.role === "admin") throw forbidden("A colony admin cannot be promoted or demoted");
  if (m.role !== "member") return;
  if (!m.approved) throw conflict("That member is awaiting approval: approve them before promoting them");
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    setRole(ctx, colony.id, m.userId, "moderator", now, tx);
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "promote", targetType: "user", targetId: m.userId, targetUserId: m.userId, meta: { role: "moderator" } });
    ctx.events.emit(tx, {
      type: "colony_member_promoted",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, user_id: m.userId, username },
    });
  });
}

/** Makes a moderator (or, for a site admin, the founder) a plain member again. */
export function demoteMember(ctx: Ctx, caller: Actor, colonyId: string, target: string): void {
  const { colony, m, username } = resolve(ctx, caller, colonyId, target);
  if (m.role === "admin") throw forbidden("A colony admin cannot be promoted or demoted");
  if (m.role === "founder_moderator" && !caller.isAdmin) throw forbidden("The founder of a colony can only be demoted by a site admin");
  if (m.role === "member") return;
  lastModeratorGuard(ctx, colony.id, m.role, "demoted");
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    setRole(ctx, colony.id, m.userId, "member", now, tx);
    moderatorExited(ctx, tx, { colonyId: colony.id, userId: m.userId, role: m.role, how: "demoted" });
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "demote", targetType: "user", targetId: m.userId, targetUserId: m.userId, meta: { previous_role: m.role } });
    ctx.events.emit(tx, {
      type: "colony_member_demoted",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, user_id: m.userId, username, previous_role: m.role },
    });
  });
}

/** Removes a member (pending ones included); they may join again. Writes `remove_member`. */
export function removeMember(ctx: Ctx, caller: Actor, colonyId: string, target: string): void {
  const { colony, m, username } = resolve(ctx, caller, colonyId, target);
  if (m.role === "founder_moderator" && !caller.isAdmin) throw forbidden("The founder of a colony can only be removed by a site admin");
  if (m.role === "admin" && !caller.isAdmin && !isFounder(ctx, colony, caller.id)) throw forbidden("A colony admin can only be removed by the founder or a site admin");
  lastModeratorGuard(ctx, colony.id, m.role, "removed");
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.delete(colonyMembers)
      .where(and(eq(colonyMembers.colonyId, colony.id), eq(colonyMembers.userId, m.userId)))
      .run();
    recountMembers(tx, colony.id, now);
    if (MODERATOR_ROLES.includes(m.role)) moderatorExited(ctx, tx, { colonyId: colony.id, userId: m.userId, role: m.role, how: "removed" });
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: "remove_member", targetType: "user", targetId: m.userId, targetUserId: m.userId, meta: { role: m.role, approved: m.approved } });
    ctx.events.emit(tx, {
      type: "colony_member_removed",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, user_id: m.userId, username, role: m.role },
    });
  });
}
