// Dead drops (spec Part 3 §4.11): leave, browse, read, signal, delete. No answer names the author,
// and every caller gets the same answer for the same drop.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { applyBodyDeprecations, withAliases } from "../../http/deprecations";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { DateTime, ErrorOut, Int, Nullable, OptionalEnum, Uuid } from "../../http/schemas";
import * as drops from "./service";

const PAGING = { max: 100, default: 20 };
const DURATIONS = Object.keys(drops.DURATIONS) as [drops.Duration, ...drops.Duration[]];
const DeadDropOut = t.Object({
  id: Uuid,
  body: t.String(),
  content: t.Optional(t.String({ description: "Deprecated copy of body" })),
  tags: t.Array(t.String()),
  signal_count: Int(),
  expires_at: Nullable(DateTime, { description: "Null: never expires" }),
  created_at: DateTime,
});
const SignalOut = t.Object({ drop_id: Uuid, signal_count: Int(), signaled: t.Boolean({ description: "Whether you now signal it" }) });
const IdParams = t.Object({ drop_id: Uuid });

/** The one shape of a drop, the same for every caller: no author, no "mine", no "signalled by me". */
const dropOut = (d: drops.DropRow) =>
  withAliases("DeadDropOut", {
    id: d.id,
    body: d.body,
    tags: d.tags,
    signal_count: d.signalCount,
    expires_at: iso(d.expiresAt),
    created_at: iso(d.createdAt),
  } as { id: string; body: string; content?: string; tags: string[]; signal_count: number; expires_at: string | null; created_at: string });

export const dropsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/dead-drops", tags: ["dead-drops"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return dropOut(drops.createDrop(ctx, caller, body));
      },
      {
        auth: "required",
        rateLimit: "drop_create",
        transform({ body, set }) {
          if (body && typeof body === "object") applyBodyDeprecations("DeadDropCreate", body as Record<string, unknown>, set);
        },
        body: t.Object({
          body: t.String({ minLength: 1, maxLength: 2000, description: "1-2000 characters (deprecated spelling: content)" }),
          tags: t.Optional(Nullable(t.Array(t.String({ maxLength: 100 }), { maxItems: drops.MAX_TAGS }))),
          duration: t.Optional(Nullable(t.UnionEnum(DURATIONS, { default: undefined, description: "Expire after 24h, 48h or 7d (deprecated spelling: expires_in); absent: never" }))),
        }),
        response: { 201: DeadDropOut, 400: ErrorOut, 403: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Dead Drop",
          description: `Leave an anonymous message: no answer, list, log line or event ever names you. Needs at least ${drops.MIN_KARMA} karma (403 KARMA_TOO_LOW). At most ${drops.MAX_TAGS} tags. Rate limited (drop_create, 3 a day).`,
        },
      },
    )
    .get(
      "",
      ({ query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = drops.listDrops(ctx, query, page);
        return paged(items.map(dropOut), total, page);
      },
      {
        query: t.Object({
          ...pagingQuery(PAGING),
          tag: t.Optional(t.String({ maxLength: 100 })),
          sort: OptionalEnum(drops.SORTS, { description: "newest (default) or signals (most signalled first)" }),
        }),
        response: pagedSchema(DeadDropOut),
        detail: { summary: "List Dead Drops", description: "Live drops (expired ones are gone), newest first or by signals; the same for every caller." },
      },
    )
    .get("/:drop_id", ({ params }) => dropOut(drops.getDrop(ctx, params.drop_id)), {
      params: IdParams,
      response: { 200: DeadDropOut, 404: ErrorOut },
      detail: { summary: "Get Dead Drop", description: "One live drop; a missing and an expired one are the same 404 NOT_FOUND." },
    })
    .post(
      "/:drop_id/signal",
      ({ caller, params }) => {
        const { drop, signaled } = drops.toggleSignal(ctx, caller, params.drop_id);
        return { drop_id: drop.id, signal_count: drop.signalCount, signaled };
      },
      {
        auth: "required",
        rateLimit: "drop_signal",
        params: IdParams,
        response: { 200: SignalOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Signal Dead Drop",
          description: "Signal a drop, or take your signal back (a toggle). Your own drop is 400 INVALID_INPUT; a missing or expired one 404 NOT_FOUND. Rate limited (drop_signal, 20 an hour).",
        },
      },
    )
    .delete(
      "/:drop_id",
      ({ caller, params, set }) => {
        drops.deleteDrop(ctx, caller, params.drop_id);
        set.status = 204;
      },
      {
        auth: "required",
        params: IdParams,
        response: { 204: t.Void(), 404: ErrorOut },
        detail: { summary: "Delete Dead Drop", description: "Delete your drop for good: 204. A missing drop and someone else's are the same 404 NOT_FOUND." },
      },
    );
