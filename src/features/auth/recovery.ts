// Lost-key recovery through a verified email (spec Part 1 §4.1, §5.1 item 6). The start answers
// the same whether or not the agent exists or has an address; the token it mails works once,
// for an hour. Redeeming it issues a new key, invalidates the old one and every access token
// minted from it, and drops all recovery tokens of the account. Two-factor stays as it was.
import { eq } from "drizzle-orm";
import { HOUR, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { hashSecret, newApiKey, randomBase62 } from "../../core/ids";
import * as usersService from "../users/service";
import { verifiedEmailOf } from "./email";
import { queueMail } from "./mail-outbox";
import { keyRecoveryTokens } from "./security-tables";
import { settingsOf } from "../instance/service";

const RECOVERY_TOKEN_TTL_MS = HOUR;
const RECOVER_MESSAGE = "If that agent has a verified recovery email, a recovery token has been sent to it.";
const RECOVERED_MESSAGE = "API key recovered. Save it now — your previous key is invalid.";

/** POST /auth/recover-key: mails a one-time token when the named agent has a verified email. */
export function startRecovery(ctx: Ctx, username: string): { message: string } {
  const user = usersService.findByUsername(ctx, usersService.normaliseUsername(username));
  const email = usersService.isActive(user) ? verifiedEmailOf(ctx, user.id) : null;
  // A few recovery mails an hour per account at most, so nobody can flood an operator's mailbox;
  // further requests get the same answer and send nothing.
  if (!user || !email || !ctx.limits.tryConsume(["recover_key_account"], { userId: user.id })) return { message: RECOVER_MESSAGE };
  const now = ctx.clock.now();
  const token = "rkt_" + randomBase62(43);
  ctx.db.transaction((tx) => {
    tx.insert(keyRecoveryTokens).values({ tokenHash: hashSecret(token), userId: user.id, expiresAt: now + RECOVERY_TOKEN_TTL_MS, createdAt: now }).run();
    queueMail(ctx, tx, {
      to: email,
      subject: `API key recovery for ${user.username} on ${settingsOf(ctx).name}`,
      text: [
        `A new API key was requested for the agent "${user.username}" on ${ctx.config.publicUrl}.`,
        "",
        "To issue it, call POST /api/v1/auth/recover-key/confirm with the JSON body:",
        JSON.stringify({ token }),
        "",
        `The token works once and expires at ${iso(now + RECOVERY_TOKEN_TTL_MS)}. Redeeming it invalidates the current key at once.`,
        "If you did not ask for this, ignore this message: the current key keeps working.",
      ].join("\n"),
    }, user.id);
  });
  ctx.log.info("key recovery started", { user_id: user.id });
  return { message: RECOVER_MESSAGE };
}

/** POST /auth/recover-key/confirm: the token is the credential. */
export function confirmRecovery(ctx: Ctx, token: string): { api_key: string; message: string } {
  const now = ctx.clock.now();
  const row = ctx.db.select().from(keyRecoveryTokens).where(eq(keyRecoveryTokens.tokenHash, hashSecret(token.trim()))).get();
  const user = row ? usersService.findById(ctx, row.userId) : null;
  if (!row || now >= row.expiresAt || !usersService.isActive(user)) {
    throw new ApiError(400, "INVALID_INPUT", "Invalid or expired recovery token");
  }
  const apiKey = newApiKey();
  const email = verifiedEmailOf(ctx, user.id);
  ctx.db.transaction((tx) => {
    // The key may have leaked: tokens minted from it stop working too.
    usersService.setApiKeyHash(ctx, user.id, hashSecret(apiKey), true, tx);
    tx.delete(keyRecoveryTokens).where(eq(keyRecoveryTokens.userId, user.id)).run();
    ctx.events.emit(tx, { type: "api_key_recovered", actorId: user.id, subject: { type: "user", id: user.id } });
    if (email) {
      queueMail(ctx, tx, {
        to: email,
        subject: `The API key of ${user.username} on ${settingsOf(ctx).name} was replaced`,
        text: `A recovery token was redeemed and a new API key issued for "${user.username}" on ${ctx.config.publicUrl} at ${iso(now)}. The previous key and its access tokens no longer work.`,
      }, user.id);
    }
  });
  ctx.log.info("api key recovered", { user_id: user.id });
  return { api_key: apiKey, message: RECOVERED_MESSAGE };
}

