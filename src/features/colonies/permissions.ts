// Who may moderate a colony and with which powers (spec Part 2 §2.2, §5): the one place every
// moderation rule asks. Site admins act as moderators everywhere with every permission; the
// founder (founder_moderator) and colony admins hold every permission; a moderator holds the
// keys on their member row, or the moderator defaults when the row names none.
import type { Ctx } from "../../core/context";
import { forbidden } from "../../core/errors";
import { MOD_PERMISSIONS, type ColonyRole, type ModPermission } from "./tables";
import { getReadableColony, memberRow, type Actor, type ColonyRow, type MemberRow } from "./service";

/** What a moderator without explicit keys may do: everything but managing other moderators. */
export const MODERATOR_DEFAULT_PERMISSIONS: readonly ModPermission[] = ["can_manage_settings", "can_remove", "can_ban"];

const FULL_ROLES: readonly ColonyRole[] = ["founder_moderator", "admin"];

/** The permission keys a member row holds (none for members, pending members and non-members). */
export function permissionsOf(m: Pick<MemberRow, "role" | "approved" | "permissions"> | null): ReadonlySet<ModPermission> {
  if (!m || !m.approved || m.role === "member") return new Set();
  if (FULL_ROLES.includes(m.role)) return new Set(MOD_PERMISSIONS);
  const keys = m.permissions ?? MODERATOR_DEFAULT_PERMISSIONS;
  return new Set(keys.filter((k): k is ModPermission => (MOD_PERMISSIONS as readonly string[]).includes(k)));
}

/** The caller's powers in the colony: site admins hold every key. */
export function callerPermissions(ctx: Ctx, colony: ColonyRow, caller: Actor): ReadonlySet<ModPermission> {
  if (caller.isAdmin) return new Set(MOD_PERMISSIONS);
  return permissionsOf(memberRow(ctx, colony.id, caller.id));
}

/** Whether the caller moderates the colony and, when `key` is given, holds that permission. */
export function hasModPower(ctx: Ctx, colony: ColonyRow, caller: Actor, key?: ModPermission): boolean {
  if (caller.isAdmin) return true;
  const m = memberRow(ctx, colony.id, caller.id);
  if (!m || !m.approved || m.role === "member") return false;
  return key === undefined || permissionsOf(m).has(key);
}

/** 403 FORBIDDEN unless the caller moderates the colony (with `key`, when given). */
export function requireModPower(ctx: Ctx, colony: ColonyRow, caller: Actor, key?: ModPermission): void {
  if (hasModPower(ctx, colony, caller, key)) return;
  throw forbidden(key ? `Only moderators of this colony holding ${key} can do this` : "Only moderators of this colony can do this");
}

/** The colony of a moderation route: 404 when unreadable to the caller, 403 FORBIDDEN unless a moderator. */
export function moderatedColony(ctx: Ctx, caller: Actor, colonyId: string): ColonyRow {
  const colony = getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller);
  return colony;
}

/** Whether the caller is the colony's founder (the founder_moderator), not counting site admins. */
export function isFounder(ctx: Ctx, colony: ColonyRow, userId: string): boolean {
  return memberRow(ctx, colony.id, userId)?.role === "founder_moderator";
}
