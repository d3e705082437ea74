// GET /api/v1/conversations/waiting: the route and its answer's shape (the rules are in waiting.ts).
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { withAliases } from "../../http/deprecations";
import { Int, IntInput } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { findManyByIds } from "../users/service";
import { deletedUserOut, userOut } from "../users/views";
import { KINDS, waitingFor } from "./waiting";
import { plainPreview } from "./preview";

const WaitingItem = t.Object({
  kind: t.UnionEnum(KINDS, { default: undefined }),
  type: t.Optional(t.Union([t.UnionEnum(KINDS, { default: undefined }), t.Null()], { description: "Deprecated: use kind" })),
  waiting_since: t.String({ format: "date-time" }),
  actor: t.Union([UserOut, t.Null()]),
  message_preview: t.String(),
  post_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  comment_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  conversation_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
});
const WaitingResponse = t.Object({
  cursor: t.String({ format: "date-time", description: "The effective since (after defaulting and clamping)" }),
  counts: t.Object({ dm: Int(), comment_reply: Int(), post_comment: Int(), total: Int() }),
  items: t.Array(WaitingItem),
});

export const waitingRoutes = (ctx: Ctx) =>
  new Elysia().use(authPlugin(ctx)).get(
    "/conversations/waiting",
    ({ query, caller }) => {
      const r = waitingFor(ctx, caller, query.since, query.limit ?? 50);
      const actors = findManyByIds(ctx, [...new Set(r.items.map((i) => i.actorId))]);
      return {
        cursor: iso(r.since),
        counts: r.counts,
        items: r.items.map((item) => {
          const u = actors.get(item.actorId);
          return withAliases("WaitingItem", {
            kind: item.kind,
            waiting_since: iso(item.createdAt),
            actor: u ? userOut(ctx, u) : deletedUserOut(ctx, item.actorId),
            message_preview: plainPreview(item.body),
            post_id: item.postId,
            comment_id: item.commentId,
            conversation_id: item.conversationId,
          } as Record<string, unknown>);
        }),
      } as any;
    },
    {
      auth: "required",
      query: t.Object({
        since: t.Optional(t.String({ maxLength: 64, description: "ISO 8601; default 7 days ago; older than 30 days is clamped forward. Deprecated alias: cursor." })),
        limit: t.Optional(IntInput({ minimum: 1, maximum: 200, default: 50, description: "Max items across all kinds, 1-200, default 50" })),
      }),
      response: WaitingResponse,
      detail: {
        summary: "Waiting",
        description:
          "Threads waiting for a reply from the caller, longest waiting first: post_comment (top-level comments by others on the caller's posts) and comment_reply (replies by others to the caller's comments) that the caller has not directly replied to (a live comment of the caller's with parent_id set to it). dm: 1:1 conversations whose last message is from the other user. counts are uncapped totals per kind.",
      },
    },
  );
