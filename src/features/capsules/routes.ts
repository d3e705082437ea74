// Time capsules (spec Part 3 §4.10): seal, browse (body null while sealed, except for the author),
// the author's own list, read, delete.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { DateTime, ErrorOut, Nullable, OptionalEnum, Uuid } from "../../http/schemas";
import type { Caller } from "../auth/service";
import { PersonRefOut } from "../users/schemas";
import { personRefs } from "../users/views";
import * as capsules from "./service";

const PAGING = { max: 100, default: 20 };
const TimeCapsuleOut = t.Object({
  id: Uuid,
  author: PersonRefOut,
  title: t.String(),
  body: Nullable(t.String(), { description: "Null while sealed, except for the author" }),
  tags: t.Array(t.String()),
  reveal_at: DateTime,
  created_at: DateTime,
  is_revealed: t.Boolean(),
});
const IdParams = t.Object({ capsule_id: Uuid });

function capsulesOut(ctx: Ctx, rows: capsules.CapsuleRow[], viewer: Caller | null) {
  const person = personRefs(
    ctx,
    rows.map((r) => r.userId),
  );
  return rows.map((c) => {
    const revealed = capsules.isRevealed(ctx, c);
    return {
      id: c.id,
      author: person(c.userId),
      title: c.title,
      body: revealed || viewer?.id === c.userId ? c.body : null,
      tags: c.tags,
      reveal_at: iso(c.revealAt),
      created_at: iso(c.createdAt),
      is_revealed: revealed,
    };
  });
}

export const capsulesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/time-capsules", tags: ["time-capsules"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return capsulesOut(ctx, [capsules.createCapsule(ctx, caller, body)], caller)[0]!;
      },
      {
        auth: "required",
        rateLimit: "capsule_create",
        body: t.Object({
          title: t.String({ minLength: 3, maxLength: 200 }),
          body: t.String({ minLength: 1, maxLength: 10_000, description: "Markdown; sealed until reveal_at" }),
          tags: t.Optional(Nullable(t.Array(t.String({ maxLength: 100 }), { maxItems: capsules.MAX_TAGS }))),
          reveal_at: t.String({ format: "date-time", description: "24 hours to 365 days from now" }),
        }),
        response: { 201: TimeCapsuleOut, 400: ErrorOut, 403: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Time Capsule",
          description:
            "Seal a capsule: the title and tags are public at once, the body only from reveal_at (24 hours to 365 days ahead, else 400 INVALID_INPUT); you are notified (time_capsule_revealed) when it opens. Needs karma of at least 0 (403 KARMA_TOO_LOW). Rate limited (capsule_create, 3 a week).",
        },
      },
    )
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = capsules.listCapsules(ctx, query, page);
        return paged(capsulesOut(ctx, items, caller), total, page);
      },
      {
        auth: "optional",
        query: t.Object({
          ...pagingQuery(PAGING),
          status: OptionalEnum(capsules.STATUSES, { description: "all (default), sealed or revealed" }),
          tag: t.Optional(t.String({ maxLength: 100 })),
          sort: OptionalEnum(capsules.SORTS, { description: "newest (default); revealing-soon: sealed ones, next to open first; recently-revealed: revealed ones, latest first" }),
        }),
        response: pagedSchema(TimeCapsuleOut),
        detail: { summary: "List Time Capsules", description: "Every capsule; the body is null while sealed unless it is yours." },
      },
    )
    .get(
      "/mine",
      ({ caller, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = capsules.listMine(ctx, caller, page);
        return paged(capsulesOut(ctx, items, caller), total, page);
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(PAGING)),
        response: pagedSchema(TimeCapsuleOut),
        detail: { summary: "My Time Capsules", description: "Your capsules, newest first, bodies always shown." },
      },
    )
    .get("/:capsule_id", ({ caller, params }) => capsulesOut(ctx, [capsules.getCapsule(ctx, params.capsule_id)], caller)[0]!, {
      auth: "optional",
      params: IdParams,
      response: { 200: TimeCapsuleOut, 404: ErrorOut },
      detail: { summary: "Get Time Capsule", description: "One capsule; the body is null while sealed unless it is yours. 404 NOT_FOUND." },
    })
    .delete(
      "/:capsule_id",
      ({ caller, params, set }) => {
        capsules.deleteCapsule(ctx, caller, params.capsule_id);
        set.status = 204;
      },
      {
        auth: "required",
        params: IdParams,
        response: { 204: t.Void(), 404: ErrorOut },
        detail: { summary: "Delete Time Capsule", description: "Delete your capsule, sealed or revealed, for good: 204. Someone else's is 404 NOT_FOUND like a missing one." },
      },
    );
