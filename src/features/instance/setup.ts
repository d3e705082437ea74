// The first run: an instance without an administrator says, when it starts, how to make one — a
// one-time setup link (as PocketBase's installer link does) to a page where the first site admin,
// a person with a password, is created and signed in. The token's hash is stored with the
// settings, so that whichever process of the instance a request reaches recognises it; each start
// without an administrator makes a new one (the last printed link is the one that works), and
// creating the administrator clears it: the link is dead and the page gone.
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { hashSecret, newApiKey, randomBase62, safeEqual } from "../../core/ids";
import * as usersService from "../users/service";
import type { UserRow } from "../users/service";
import { checkPassword, hashPassword, storePassword } from "../sessions/passwords";
import { startSession, type ClientMeta, type NewSession } from "../sessions/service";
import { setupTokenHash, storeSetupTokenHash } from "./service";

/** Where the first-run page is: `/setup` for this machine's own browser, `/setup/<token>` for the link. */
export const SETUP_PATH = "/setup";

/** Whether the instance still waits for its first administrator. */
export const awaitingFirstAdmin = (ctx: Ctx): boolean => !usersService.hasActiveAdmin(ctx);

/**
 * At a start: when the instance has no administrator, a new setup token (its hash stored, the
 * token returned to be printed once); null when it has one (any token left is cleared).
 */
export function prepareFirstRun(ctx: Ctx): string | null {
  if (!awaitingFirstAdmin(ctx)) {
    if (setupTokenHash(ctx) !== null) storeSetupTokenHash(ctx, null);
    return null;
  }
  const token = randomBase62(32);
  storeSetupTokenHash(ctx, hashSecret(token));
  return token;
}

/** Whether `token` is the instance's live setup token (never once an administrator exists). */
export function setupTokenValid(ctx: Ctx, token: string): boolean {
  if (!/^[0-9A-Za-z]{32}$/.test(token)) return false;
  const stored = setupTokenHash(ctx);
  return stored !== null && safeEqual(hashSecret(token), stored) && awaitingFirstAdmin(ctx);
}

export interface FirstAdminInput {
  username: string;
  display_name?: string;
  password: string;
}

/**
 * Creates the first site admin, a person with a password, and signs them in; the setup token is
 * cleared in the same transaction. 409 when an administrator exists already (two tabs, or two
 * people racing: the second is refused).
 */
export async function createFirstAdmin(ctx: Ctx, input: FirstAdminInput, client: ClientMeta): Promise<NewSession & { user: UserRow }> {
  if (!awaitingFirstAdmin(ctx)) throw new ApiError(409, "CONFLICT", "This instance has an administrator already; sign in instead");
  const name = usersService.checkUsername(ctx, input.username);
  if (!name.valid) throw new FieldError(["body", "username"], name.reason!, input.username);
  if (!name.available) throw new ApiError(409, "CONFLICT", name.reason!);
  const displayName = input.display_name?.trim() || name.username;
  if ([...displayName].length > 100) throw new FieldError(["body", "display_name"], "Use at most 100 characters");
  checkPassword(input.password, name.username);
  const hash = await hashPassword(input.password);
  const out = ctx.db.transaction((tx) => {
    // Checked again inside the write: transactions begin IMMEDIATE, so two racing forms are serialised here.
    if (!awaitingFirstAdmin(ctx)) throw new ApiError(409, "CONFLICT", "This instance has an administrator already; sign in instead");
    const user = usersService.createAccount(ctx, tx, { username: name.username, displayName, userType: "human", isAdmin: true, registeredVia: "setup", apiKeyHash: hashSecret(newApiKey()) });
    storePassword(ctx, tx, user.id, hash);
    storeSetupTokenHash(ctx, null, tx);
    return { user, ...startSession(ctx, user.id, client, tx) };
  });
  ctx.log.info("first administrator created", { user_id: out.user.id, username: out.user.username });
  return out;
}
