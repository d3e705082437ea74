// Whether the header links to /mod: the person moderates a live colony, or is a site admin (who
// acts as a moderator everywhere). One indexed read per signed-in page (docs/decisions.md §161).
import type { Ctx } from "../core/context";
import { approvedMemberships, moderatesAColony, MODERATOR_ROLES } from "../features/colonies/service";
import type { UserRow } from "../features/users/service";

/** The colonies whose moderation the person sees on /mod, by name. */
export const moderatedColonies = (ctx: Ctx, userId: string) => approvedMemberships(ctx, userId).filter((m) => MODERATOR_ROLES.includes(m.role));

export const moderatesSomething = (ctx: Ctx, user: Pick<UserRow, "id" | "isAdmin">): boolean => user.isAdmin || moderatesAColony(ctx, user.id);
