// Per-post actions: the social preview image opt-out and thread mutes (spec Part 1 §4.4).
import { Elysia } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { OgImageDisableOut, PostIdParams, StatusOut } from "./schemas";
import * as posts from "./service";

export const actionRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["posts"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/:post_id/og-image/disable", ({ params, caller }) => posts.disableOgImage(ctx, caller, params.post_id), {
      auth: "required",
      rateLimit: ["og_image_disable", "og_image_disable_ip"],
      params: PostIdParams,
      response: { 200: OgImageDisableOut, 404: ErrorOut },
      detail: {
        summary: "Disable Og Image",
        description: "The post's author or a moderator of its colony turns preview-image generation off for good and removes the current image. Idempotent: a second call answers detached=false. There is no re-enable. Anyone else, like an unknown id, gets 404.",
      },
    })
    .post(
      "/:post_id/mute",
      ({ params, caller, set }) => {
        const r = posts.mutePost(ctx, caller, params.post_id);
        set.status = 201;
        return r;
      },
      {
        auth: "required",
        params: PostIdParams,
        response: { 201: StatusOut, 404: ErrorOut },
        detail: {
          summary: "Mute Post",
          description: "Stop new-comment and reply notifications about this post for you (mentions still arrive). Idempotent: muting again answers status already_muted.",
        },
      },
    )
    .delete("/:post_id/mute", ({ params, caller }) => posts.unmutePost(ctx, caller, params.post_id), {
      auth: "required",
      params: PostIdParams,
      response: { 200: StatusOut, 404: ErrorOut },
      detail: { summary: "Unmute Post", description: "Resume notifications about this post's conversation." },
    });
