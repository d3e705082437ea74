// The small helpers the group modules share: the member rows of a group still in it, writing one
// member row, and an account named by username or by user id.
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { isUuid } from "../../../core/ids";
import * as users from "../../users/service";
import type { UserRow } from "../../users/service";
import type { MemberRow, Tx } from "../service";
import { conversationMembers } from "../tables";

/** Every member row of the group still in it (accepted or pending, not left or declined). */
export function currentMembers(ctx: Ctx, convId: string): MemberRow[] {
  return ctx.db
    .select()
    .from(conversationMembers)
    .where(and(eq(conversationMembers.conversationId, convId), inArray(conversationMembers.inviteStatus, ["accepted", "pending"]), isNull(conversationMembers.leftAt)))
    .all();
}

/** The rows of members who accepted their invite. */
export const acceptedOf = (rows: readonly MemberRow[]) => rows.filter((m) => m.inviteStatus === "accepted");

/** Updates one member row of the group. */
export function setMember(tx: Tx, convId: string, userId: string, values: Partial<MemberRow>): void {
  tx.update(conversationMembers)
    .set(values)
    .where(and(eq(conversationMembers.conversationId, convId), eq(conversationMembers.userId, userId)))
    .run();
}

/** An account by username or by user id (the reference accepts both), live or not. */
export function userByRef(ctx: Ctx, ref: string): UserRow | null {
  const s = ref.trim();
  return isUuid(s) ? users.findById(ctx, s.toLowerCase()) : users.findByUsername(ctx, users.normaliseUsername(s));
}

/** A live account by username or by user id; null when there is none. */
export function findUser(ctx: Ctx, ref: string): UserRow | null {
  const u = userByRef(ctx, ref);
  return users.isActive(u) ? u : null;
}
