// Mail leaves after commit (ARCHITECTURE rule 6): a request queues a `mail_queued` event in the
// transaction of its write and the outbox worker hands it to the Mailer. The message, which may
// carry a one-time token, is sealed with the data key so the events table never holds it in clear.
// A failed send is retried as a durable job with backoff.
import type { MailMessage } from "../../adapters/mail";
import type { Ctx } from "../../core/context";
import { seal, unseal } from "../../core/secrets";
import type { Tx } from "../../db/client";

const AAD = "mail_queued";
const RETRY_DELAY_MS = 60_000;

/** Queues `msg` for delivery once the transaction `tx` commits. */
export function queueMail(ctx: Ctx, tx: Tx, msg: MailMessage, userId: string | null = null): void {
  ctx.events.emit(tx, { type: "mail_queued", actorId: userId, payload: { sealed: seal(ctx.secrets.dataKey, JSON.stringify(msg), AAD) } });
}

function open(ctx: Ctx, payload: Record<string, unknown>): MailMessage | null {
  if (typeof payload.sealed !== "string") return null;
  try {
    return JSON.parse(unseal(ctx.secrets.dataKey, payload.sealed, AAD)) as MailMessage;
  } catch {
    ctx.log.error("queued mail could not be opened (data key changed?)", {});
    return null;
  }
}

/** Delivers queued mail after commit; a failed send is retried by the job runner with its backoff. */
export function registerMailDelivery(ctx: Ctx): void {
  ctx.events.onAsync("mail_queued", async (ev) => {
    const msg = open(ctx, ev.payload);
    if (!msg) return;
    try {
      await ctx.mail.send(msg);
    } catch (err) {
      ctx.log.warn("mail delivery failed; will retry", { subject: msg.subject, error: String(err) });
      ctx.jobs.schedule("mail_retry", ctx.clock.now() + RETRY_DELAY_MS, { sealed: ev.payload.sealed });
    }
  });
  // Throws on failure so the job runner retries with its backoff.
  ctx.jobs.handle("mail_retry", async (payload) => {
    const msg = open(ctx, payload);
    if (msg) await ctx.mail.send(msg);
  });
}
