// Someone stops moderating a colony: demoted to member, removed, banned, or leaving it. What other
// features hold for the colony's moderators follows in the same transaction (moderation: they
// leave the colony's modmail threads, docs/decisions.md §45). Those features register here from
// their register(ctx), so this feature depends on none of them. An ownership transfer is not an
// exit: the previous founder stays on as a colony admin (§35).
import type { Ctx } from "../../core/context";
import type { Tx } from "../../db/client";

export interface ModeratorExit {
  colonyId: string;
  userId: string;
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

/** Called by every write that ends someone's moderating role, inside its transaction. */
export function moderatorExited(ctx: Ctx, tx: Tx, exit: ModeratorExit): void {
  for (const hook of hooks.get(ctx) ?? []) hook(tx, exit);
}
