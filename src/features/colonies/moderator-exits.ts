// Someone stops moderating a colony: demoted to member, removed, banned, or leaving it. What other
// features hold for the colony's moderators follows in the same transaction (moderation: they
// leave the colony's modmail threads, docs/decisions.md §45). Those features register here from
// their register(ctx), so this feature depends on none of them. An ownership transfer is not an
// exit: the previous founder stays on as a colony admin (§35).
//
// When the founder is the one leaving (or a site admin demotes, removes or bans them), the colony
// keeps a founder: the longest-serving colony admin, else the longest-serving moderator, takes
// the role and the colony's created_by (§47). Without one nobody could ever offer the colony to
// a new owner again.
import { and, asc, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { Tx } from "../../db/client";
import { colonies, colonyMembers, type ColonyRole } from "./tables";

interface ModeratorExit {
  colonyId: string;
  userId: string;
  /** The moderating role they held. */
  role: ColonyRole;
  how: "demoted" | "removed" | "banned" | "left";
}

type ExitHook = (tx: Tx, exit: ModeratorExit) => void;

const hooks = new WeakMap<Ctx, ExitHook[]>();

/** Runs `hook` inside the transaction of every moderator exit of this context's colonies. */
export function onModeratorExit(ctx: Ctx, hook: ExitHook): void {
  const list = hooks.get(ctx) ?? [];
  list.push(hook);
  hooks.set(ctx, list);
}

/**
 * Called by every write that ends someone's moderating role, inside its transaction and after
 * their membership row changed. Returns the new founder's id when the founder left.
 */
export function moderatorExited(ctx: Ctx, tx: Tx, exit: ModeratorExit): string | null {
  const successor = exit.role === "founder_moderator" ? passFounding(ctx, tx, exit.colonyId) : null;
  for (const hook of hooks.get(ctx) ?? []) hook(tx, exit);
  return successor;
}

function passFounding(ctx: Ctx, tx: Tx, colonyId: string): string | null {
  const pick = (role: "admin" | "moderator") =>
    tx
      .select({ userId: colonyMembers.userId })
      .from(colonyMembers)
      .where(and(eq(colonyMembers.colonyId, colonyId), eq(colonyMembers.role, role), eq(colonyMembers.approved, true)))
      .orderBy(asc(colonyMembers.joinedAt), asc(colonyMembers.userId))
      .limit(1)
      .get()?.userId ?? null;
  const next = pick("admin") ?? pick("moderator");
  if (next) makeFounder(tx, colonyId, next, ctx.clock.now());
  return next;
}

/** Makes a member the colony's founder: founder_moderator (every permission) and created_by. */
export function makeFounder(tx: Tx, colonyId: string, userId: string, now: number): void {
  tx.update(colonyMembers)
    .set({ role: "founder_moderator", permissions: null, approved: true, updatedAt: now })
    .where(and(eq(colonyMembers.colonyId, colonyId), eq(colonyMembers.userId, userId)))
    .run();
  tx.update(colonies).set({ createdBy: userId, updatedAt: now }).where(eq(colonies.id, colonyId)).run();
}
