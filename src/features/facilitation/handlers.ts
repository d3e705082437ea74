// Facilitation's registration: who is told (the fan-out rules, in the emitting transaction), the
// auto-accept and deadline jobs, matching new requests to humans, and a deleted post cancelling
// its request. The six §6.2 events also go to the
// recipients' webhooks through the generic rule (webhooks/mapping.ts).
//
// - facilitation_claimed, facilitation_submitted → the request's author.
// - facilitation_accepted, facilitation_revision_requested, facilitation_deadline → the claimer.
// - facilitation_matched → the matched human.
// - facilitation_abandoned → the author; facilitation_ended → the claimers whose claims it ended
//   (notification facilitation_cancelled or facilitation_closed).
import type { Ctx } from "../../core/context";
import type { Told } from "../../core/events";
import { tell } from "../notifications/service";
import { AUTO_ACCEPT_JOB, DEADLINE_JOB, autoAccept, endWithPost, matchHumans, warnDeadline } from "./service";

const onPost = (postId: string) => ({ target: { type: "post", id: postId }, postId });

/** One notification of `kind` to each recipient of a §6.2 event, with the payload (less recipient_ids) as meta. */
function toRecipients(ctx: Ctx, ev: { id: string; actorId: string | null; payload: { recipient_ids: string[]; post_id: string } & Record<string, unknown> }, kind: string, extra: Record<string, unknown> = {}): Told[] {
  const { recipient_ids, ...meta } = ev.payload;
  return tell(
    ctx,
    recipient_ids.map((userId) => ({ userId, kind, actorId: ev.actorId, ...onPost(ev.payload.post_id), meta: { ...meta, ...extra }, eventId: ev.id })),
  );
}

export function register(ctx: Ctx): void {
  ctx.events.fanOut("facilitation_claimed", (ev) => toRecipients(ctx, ev, "facilitation_claimed"));
  ctx.events.fanOut("facilitation_submitted", (ev) => {
    const { result: _result, ...rest } = ev.payload;
    return toRecipients(ctx, { ...ev, payload: rest }, "facilitation_submitted");
  });
  ctx.events.fanOut("facilitation_accepted", (ev) => toRecipients(ctx, ev, "facilitation_accepted", { auto: ev.actorId === null }));
  ctx.events.fanOut("facilitation_revision_requested", (ev) => toRecipients(ctx, ev, "facilitation_revision_requested"));
  ctx.events.fanOut("facilitation_deadline", (ev) => toRecipients(ctx, ev, "facilitation_deadline"));
  ctx.events.fanOut("facilitation_matched", (ev) => toRecipients(ctx, ev, "facilitation_matched"));
  ctx.events.fanOut("facilitation_abandoned", (ev) => {
    const p = ev.payload;
    return tell(ctx, {
      userId: p.author_id,
      kind: "facilitation_abandoned",
      actorId: ev.actorId,
      ...onPost(p.post_id),
      meta: { post_id: p.post_id, post_title: p.post_title, claim_id: p.claim_id, reopened: p.reopened },
      eventId: ev.id,
    });
  });
  ctx.events.fanOut("facilitation_ended", (ev) => {
    const p = ev.payload;
    const meta = { post_id: p.post_id, post_title: p.post_title, reason: p.reason };
    return tell(
      ctx,
      p.ended_claimer_ids.map((userId) => ({ userId, kind: `facilitation_${p.status}`, actorId: ev.actorId, ...onPost(p.post_id), meta, eventId: ev.id })),
    );
  });
  ctx.jobs.handle(AUTO_ACCEPT_JOB, (payload) => autoAccept(ctx, String(payload.post_id)));
  ctx.jobs.handle(DEADLINE_JOB, (payload) => warnDeadline(ctx, String(payload.claim_id)));
  ctx.events.on("post_created", (ev) => {
    if (ev.payload.post_type === "human_request" && !ev.payload.readers.restricted) matchHumans(ctx, ev.payload.post_id);
  });
  ctx.events.on("post_deleted", (ev) => endWithPost(ctx, ev.payload.post_id));
}
