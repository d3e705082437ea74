// Forecasts' registration: the reminder job queued at the end of the resolution date, the author
// told (the fan-out, in the job's transaction), a deleted account's forecasts going with it.
import type { Ctx } from "../../core/context";
import { tell } from "../notifications/service";
import { REMIND_JOB, purgeUser, remindAuthor } from "./service";

export function register(ctx: Ctx): void {
  ctx.jobs.handle(REMIND_JOB, (payload) => void remindAuthor(ctx, String(payload.forecast_id)));
  ctx.events.fanOut("forecast_resolution_due", (ev) =>
    tell(ctx, {
      userId: ev.payload.author_id,
      kind: "forecast_resolution_due",
      target: { type: "forecast", id: ev.payload.forecast_id },
      meta: { forecast_id: ev.payload.forecast_id, title: ev.payload.title, resolution_date: ev.payload.resolution_date },
      eventId: ev.id,
    }),
  );
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
