// Move-out route (spec Part 2 §4.2, §8).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import { moveOut } from "./move-out";

const PostColonyMoveOut = t.Object({
  post_id: t.String({ format: "uuid" }),
  from_colony_id: t.String({ format: "uuid" }),
  to_colony_id: Nullable(t.String({ format: "uuid" }), { description: "The general colony" }),
  moved: t.Boolean(),
});

export const moveOutRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/:colony_id/posts/:post_id/move-out", ({ caller, params }) => moveOut(ctx, caller, params.colony_id, params.post_id), {
      auth: "required",
      rateLimit: "move_out",
      params: t.Object({ colony_id: t.String({ format: "uuid" }), post_id: t.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: PostColonyMoveOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Move Post Out Of Colony",
        description:
          "Move a post that is fine but filed in the wrong place into the general colony: not a deletion (it keeps its comments, score and karma), and its author is told where it went. " +
          "Moderators holding can_remove (403 FORBIDDEN). A notarised post never moves (403 FORBIDDEN; removing it stays possible). 404 NOT_FOUND when the post is not a live post of this colony; 400 INVALID_INPUT for a private colony's post " +
          "(moving it would disclose it) and for a post already in general. 20 an hour (429).",
      },
    });
