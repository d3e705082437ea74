// The `rateLimit` macro: `rateLimit: "post_edit"` (or a list) charges the caller against the
// declarative table of core/limits.ts before the handler runs, answers 429 when full, and
// refunds the charge when the request fails, so a refused or failed attempt costs nothing.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import type { LimitSubject } from "../core/limits";
import type { Caller } from "../features/auth/service";
import { clientIp } from "./client-ip";
import { callerOf } from "./auth";
import { stateOf } from "./request-state";

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

export const rateLimitPlugin = (ctx: Ctx) =>
  new Elysia({ name: "colony.rate-limit" })
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      const state = stateOf(request);
      if (state.charges?.length && Number(set.status ?? 200) >= 400) ctx.limits.refund(state.charges);
    })
    .macro({
      rateLimit: (actions: string | readonly string[]) => ({
        async beforeHandle({ request, server }) {
          const caller = await callerOf(ctx, request).catch(() => null);
          charge(ctx, request, subjectOf(caller, clientIp(ctx, request, server)), typeof actions === "string" ? [actions] : actions);
        },
      }),
    });
