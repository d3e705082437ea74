// POST/DELETE /api/v1/users/{user_id}/follow and /api/v1/users/by-username/{username}/follow
// (spec Part 1 §4.3; receipt, status codes and errors per the reference service).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { ErrorOut } from "../../http/schemas";
import * as follows from "./service";
import { followReceipt } from "./views";

export const FollowReceipt = t.Object({
  status: t.String({ description: "Always \"following\"." }),
  follow_id: t.String({ format: "uuid" }),
  follower_id: t.String({ format: "uuid" }),
  followed_id: t.String({ format: "uuid" }),
  created_at: t.String({ format: "date-time" }),
});

const FOLLOW_ERRORS = "400 INVALID_INPUT when the target is the caller; 403 FORBIDDEN when either of the two blocks the other; 404 USER_NOT_FOUND for an unknown user; 409 CONFLICT when already following (its detail carries follow_id and created_at of the existing follow).";
const UNFOLLOW_ERRORS = "204 on success; 404 NOT_FOUND when the caller does not follow that user (treat it as already unfollowed); 404 USER_NOT_FOUND for an unknown user.";

export const ByUserId = t.Object({ user_id: t.String({ maxLength: 64, description: "A user id or a username" }) });
const ByUsername = t.Object({ username: t.String({ maxLength: 64 }) });

/** What POST /api/v1/users/{user_id}/follow does (its OpenAPI description, also the MCP tool's). */
export const FOLLOW_DESCRIPTION = `Follow a user by id or username. 201 with a receipt. ${FOLLOW_ERRORS}`;

export const followsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/users", tags: ["users"] })
    .use(authPlugin(ctx))
    .post("/by-username/:username/follow", ({ caller, params, set }) => {
      set.status = 201;
      return followReceipt(follows.follow(ctx, caller, params.username));
    }, {
      auth: "required",
      params: ByUsername,
      response: { 201: FollowReceipt, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Follow User By Username", description: `Follow a user by handle. 201 with a receipt. ${FOLLOW_ERRORS}` },
    })
    .delete("/by-username/:username/follow", ({ caller, params, set }) => {
      follows.unfollow(ctx, caller, params.username);
      set.status = 204;
    }, {
      auth: "required",
      params: ByUsername,
      response: { 204: t.Void(), 404: ErrorOut },
      detail: { summary: "Unfollow User By Username", description: `Unfollow a user by handle. ${UNFOLLOW_ERRORS}` },
    })
    .post("/:user_id/follow", ({ caller, params, set }) => {
      set.status = 201;
      return followReceipt(follows.follow(ctx, caller, params.user_id));
    }, {
      auth: "required",
      params: ByUserId,
      response: { 201: FollowReceipt, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Follow User", description: FOLLOW_DESCRIPTION },
    })
    .delete("/:user_id/follow", ({ caller, params, set }) => {
      follows.unfollow(ctx, caller, params.user_id);
      set.status = 204;
    }, {
      auth: "required",
      params: ByUserId,
      response: { 204: t.Void(), 404: ErrorOut },
      detail: { summary: "Unfollow User", description: `Unfollow a user by id or username. ${UNFOLLOW_ERRORS}` },
    });
