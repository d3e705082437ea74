// Colony icon and header routes (spec Part 2 §4.1, §7, §8) and the served image files.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { ColonyIdParams, ColonyOut } from "../colonies/schemas";
import { colonyOut } from "../colonies/views";
import * as media from "./media";

export const mediaRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/api/v1/colonies/:colony_id/header", async ({ caller, params, body, set }) => {
      const colony = await media.uploadHeader(ctx, caller, params.colony_id, body.file);
      set.status = 201;
      return colonyOut(colony);
    }, {
      auth: "required",
      rateLimit: ["colony_header_upload", "colony_header_upload_daily", "colony_header_upload_ip"],
      params: ColonyIdParams,
      body: t.Object({ file: t.File() }),
      response: { 201: ColonyOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Upload Colony Header",
        description:
          "Multipart `file`: a PNG, JPEG or WebP banner (detected from the bytes) of at most 5 MB, 600x100 to 8000x8000 pixels, at least as wide as tall, not animated. " +
          "Re-encoded to one WebP fitting 1920x960 with all metadata (EXIF included) removed; replaces any earlier header; answers the colony with header_url. " +
          "Moderators holding can_manage_settings with at least 100 karma (403 FORBIDDEN, 403 KARMA_TOO_LOW). Errors: 413 HEADER_TOO_LARGE; 400 HEADER_INVALID_FORMAT, " +
          "HEADER_ANIMATED, HEADER_TOO_SMALL, HEADER_TOO_LARGE_DIMENSIONS, HEADER_BAD_ASPECT_RATIO. 5 an hour and 15 a day per account, 30 an hour per IP (429).",
      },
    })
    .delete("/api/v1/colonies/:colony_id/header", async ({ caller, params, set }) => {
      await media.removeHeader(ctx, caller, params.colony_id);
      set.status = 204;
    }, {
      auth: "required",
      params: ColonyIdParams,
      response: { 204: t.Void(), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "Delete Colony Header", description: "Clear the header image. Same authority as the upload (can_manage_settings, 100 karma); 404 NOT_FOUND when there is none." },
    })
    .post("/api/v1/colonies/:colony_id/icon", async ({ caller, params, body, set }) => {
      const colony = await media.uploadIcon(ctx, caller, params.colony_id, body.file);
      set.status = 201;
      return colonyOut(colony);
    }, {
      auth: "required",
      rateLimit: "colony_icon_upload",
      params: ColonyIdParams,
      body: t.Object({ file: t.File() }),
      response: { 201: ColonyOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Upload Colony Icon",
        description:
          "Multipart `file`: PNG, JPEG or WebP (detected from the bytes), at most 2 MB, 64x64 to 1024x1024 pixels, not animated — the avatar rules and codes. Re-encoded into three square " +
          "WebP renditions (icon_url 32 px, icon_url_96, icon_url_256) with all metadata removed; replaces any earlier icon; answers the colony. Moderators holding " +
          "can_manage_settings (403 FORBIDDEN). Errors: 413 AVATAR_TOO_LARGE; 400 AVATAR_INVALID_FORMAT, AVATAR_TOO_SMALL, AVATAR_TOO_LARGE_DIMENSIONS, AVATAR_ANIMATED. 5 an hour (429).",
      },
    })
    .delete("/api/v1/colonies/:colony_id/icon", async ({ caller, params, set }) => {
      await media.removeIcon(ctx, caller, params.colony_id);
      set.status = 204;
    }, {
      auth: "required",
      params: ColonyIdParams,
      response: { 204: t.Void(), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "Delete Colony Icon", description: "Clear the icon and remove its files. Moderators holding can_manage_settings; 404 NOT_FOUND when there is none (a second DELETE too)." },
    })
    .get("/colony-media/:colony_id/:file", async ({ caller, params }) => {
      const file = Bun.file(media.mediaPath(ctx, caller ?? null, params.colony_id, params.file));
      if (!(await file.exists())) throw new ApiError(404, "NOT_FOUND", "Image not found");
      return new Response(file, { headers: { "content-type": "image/webp", "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" } });
    }, {
      auth: "optional",
      params: t.Object({ colony_id: t.String({ maxLength: 64 }), file: t.String({ maxLength: 32 }) }),
      response: { 200: t.String({ description: "image/webp" }), 404: ErrorOut },
      detail: { summary: "Colony Image", description: "A colony's icon rendition (icon-32.webp, icon-96.webp, icon-256.webp) or header (header.webp). 404 NOT_FOUND otherwise, and for a private colony you cannot read." },
    });
