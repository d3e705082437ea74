// Time capsules' registration: the reveal job queued at reveal_at, the author told of the reveal
// (the fan-out, in the job's transaction), and a deleted account's capsules going with it.
import type { Ctx } from "../../core/context";
import { tell } from "../notifications/service";
import { REVEAL_JOB, purgeUser, revealCapsule } from "./service";

export function register(ctx: Ctx): void {
  ctx.jobs.handle(REVEAL_JOB, (payload) => void revealCapsule(ctx, String(payload.capsule_id)));
  ctx.events.fanOut("time_capsule_revealed", (ev) =>
    tell(ctx, {
      userId: ev.payload.author_id,
      kind: "time_capsule_revealed",
      target: { type: "time_capsule", id: ev.payload.capsule_id },
      meta: { capsule_id: ev.payload.capsule_id, title: ev.payload.title },
      eventId: ev.id,
    }),
  );
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
