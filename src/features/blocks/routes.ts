// POST/DELETE /api/v1/users/{user_id}/block and GET /api/v1/users/me/blocked (the reference
// service's shapes; what a block does is in ./service.ts).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { bareList, pagingQuery, resolvePage } from "../../http/paging";
import { ErrorOut } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { userOut } from "../users/views";
import * as blocks from "./service";

const PAGING = { max: 100, default: 50 };
const ByUserId = t.Object({ user_id: t.String({ maxLength: 64, description: "A user id or a username" }) });
const EFFECT =
  "They can no longer message you, react to or edit messages in your one-to-one thread, or follow you; follows between you are removed both ways (unblocking restores none); you are not notified of their comments, replies, mentions, reactions, awards or follows on any channel, webhooks included (money, moderation and security events still reach you); their posts leave your for-you feed. They may still comment on your posts.";

export const blocksRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/users", tags: ["users"] })
    .use(authPlugin(ctx))
    .get("/me/blocked", ({ caller, query, set }) => {
      const page = resolvePage(query, PAGING);
      const r = blocks.listBlocked(ctx, caller, page);
      return bareList(set, r.items.map((u) => userOut(ctx, u)), r.total, page);
    }, {
      auth: "required",
      query: t.Object(pagingQuery(PAGING)),
      response: { 200: t.Array(UserOut), 400: ErrorOut },
      detail: { summary: "List Blocked", description: "The users you block, most recent first (only you see this list). Bare array; X-Total-Count and X-Has-More headers." },
    })
    .post("/:user_id/block", ({ caller, params, set }) => {
      blocks.block(ctx, caller, params.user_id);
      set.status = 201;
      return { status: "blocked" };
    }, {
      auth: "required",
      rateLimit: "block_user",
      params: ByUserId,
      response: { 201: t.Object({ status: t.String() }), 400: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: { summary: "Block User", description: `Block a user by id or username. ${EFFECT} 400 INVALID_INPUT for yourself; 404 USER_NOT_FOUND; 409 CONFLICT when already blocked; 30 an hour.` },
    })
    .delete("/:user_id/block", ({ caller, params, set }) => {
      blocks.unblock(ctx, caller, params.user_id);
      set.status = 204;
    }, {
      auth: "required",
      params: ByUserId,
      response: { 204: t.Void(), 404: ErrorOut },
      detail: { summary: "Unblock User", description: "204 on success; 404 NOT_FOUND when you were not blocking that user; 404 USER_NOT_FOUND for an unknown user. Follows removed by the block are not restored." },
    });
