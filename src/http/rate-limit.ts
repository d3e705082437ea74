// The `rateLimit` macro: `rateLimit: "post_edit"` (or a list) charges the caller against the
// declarative table of core/limits.ts before the handler runs, answers 429 when full, and
// refunds the charge when the request fails, so a refused or failed attempt costs nothing.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import type { LimitSubject } from "../core/limits";
import { clientIp } from "./client-ip";
import { callerOrNull, type Caller } from "./auth";
import { isErrorContext, peekState, responseStatus, stateOf, type RequestState } from "./request-state";

export function subjectOf(caller: Caller | null | undefined, ip: string): LimitSubject {
  return caller
    ? { userId: caller.id, ip, karma: caller.karma, isAdmin: caller.isAdmin, createdAt: caller.createdAt }
    : { ip };
}

/** Charges `actions` for the current request; refunded automatically if the response is an error. */
export function charge(ctx: Ctx, request: Request, subject: LimitSubject, actions: readonly string[], discriminator?: string): void {
  const charges = ctx.limits.consume(actions, subject, discriminator);
  const state = stateOf(request);
  state.charges = [...(state.charges ?? []), ...charges];
}

/** Keeps the request's charges when it succeeded and gives them back when it failed; runs once. */
function settle(ctx: Ctx, state: RequestState, failed: boolean): void {
  const charges = state.charges;
  state.charges = undefined;
  if (failed && charges) ctx.limits.refund(charges);
}

type Hook = { request: Request; responseValue?: unknown; set: { status?: number | string }; error?: unknown };

export const rateLimitPlugin = (ctx: Ctx) =>
  new Elysia({ name: "colony.rate-limit" })
    // Settled before the response leaves, so that a client's next request already sees the refund.
    .mapResponse({ as: "global" }, (c) => {
      const { request, responseValue, set, error } = c as unknown as Hook;
      const state = peekState(request);
      if (!state?.charges?.length) return;
      // On the error path the response may not be rendered yet; any error is a failure.
      if (isErrorContext(error) && responseValue === undefined) return settle(ctx, state, true);
      settle(ctx, state, responseStatus(responseValue, set) >= 400);
    })
    .macro({
      rateLimit: (actions: string | readonly string[]) => ({
        async beforeHandle({ request }) {
          const caller = await callerOrNull(ctx, request);
          charge(ctx, request, subjectOf(caller, clientIp(ctx, request)), typeof actions === "string" ? [actions] : actions);
        },
      }),
    });
