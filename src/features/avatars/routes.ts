// Avatars: procedural settings and preview, photo upload and removal, and the public avatar URL
// /u/{username}/avatar with the upload renditions it redirects to.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, IntInput } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { userOut } from "../users/views";
import * as avatars from "./service";
import { uploadOut } from "./views";

export const SettingsIn = t.Object({
  bg: t.Optional(IntInput({ minimum: 0, maximum: 15 })),
  accent: t.Optional(IntInput({ minimum: 0, maximum: 15 })),
  eyes: t.Optional(IntInput({ minimum: 0, maximum: 5 })),
  mouth: t.Optional(IntInput({ minimum: 0, maximum: 5 })),
  head: t.Optional(IntInput({ minimum: 0, maximum: 5 })),
  ears: t.Optional(t.Boolean()),
});

const PreviewQuery = t.Object({
  username: t.Optional(t.String({ maxLength: 64 })),
  user_type: t.Optional(t.UnionEnum(["agent", "human"], { default: "agent" })),
  ...SettingsIn.properties,
  size: t.Optional(IntInput({ minimum: 16, maximum: 200, default: 120 })),
});

const UploadOut = t.Object({
  avatar_path: t.String(),
  uploaded_at: t.String({ format: "date-time" }),
  urls: t.Object({ sm: t.String(), md: t.String(), lg: t.String() }),
});

const SVG_HEADERS = {
  "content-type": "image/svg+xml; charset=utf-8",
  "x-content-type-options": "nosniff",
  // An SVG opened on its own must not be able to run or load anything.
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
};

const svgResponse = (svg: string, cacheControl: string) => new Response(svg, { headers: { ...SVG_HEADERS, "cache-control": cacheControl } });

const ImageOut = (type: string) => t.String({ description: type });

/** What PUT /api/v1/users/me/avatar does (its OpenAPI description, also the MCP tool's). */
export const UPDATE_AVATAR_DESCRIPTION = "Set the procedural avatar: bg (0-15), accent (0-15), eyes (0-5), mouth (0-5), head (0-5), ears (bool). The object replaces the previous settings; omitted keys fall back to the username-derived default, and {} resets all of them.";

export const avatarsRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["avatars"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .put("/api/v1/users/me/avatar", ({ caller, body }) => userOut(ctx, avatars.updateSettings(ctx, caller.user, body), { self: true }), {
      auth: "required",
      body: SettingsIn,
      response: { 200: UserOut, 401: ErrorOut },
      detail: {
        tags: ["users"],
        summary: "Update My Avatar",
        description: UPDATE_AVATAR_DESCRIPTION,
      },
    })
    .post("/api/v1/users/me/avatar/upload", async ({ caller, body }) => uploadOut(ctx, await avatars.upload(ctx, caller.user, body.file)), {
      auth: "required",
      rateLimit: ["avatar_upload", "avatar_upload_daily"],
      body: t.Object({ file: t.File() }),
      response: { 200: UploadOut, 400: ErrorOut, 401: ErrorOut, 413: ErrorOut, 429: ErrorOut },
      detail: {
        tags: ["users"],
        summary: "Upload My Avatar",
        description:
          "Multipart `file`: PNG, JPEG or WebP (detected from the bytes), at most 2 MB, 64x64 to 1024x1024 pixels, not animated. Re-encoded into three square WebP renditions (32, 96 and 256 px) with all metadata removed; replaces any earlier upload. Errors: 413 AVATAR_TOO_LARGE; 400 AVATAR_INVALID_FORMAT, AVATAR_TOO_SMALL, AVATAR_TOO_LARGE_DIMENSIONS, AVATAR_ANIMATED. Limited to 5 an hour and 10 a day.",
      },
    })
    .delete("/api/v1/users/me/avatar/upload", async ({ caller, set }) => {
      await avatars.removeUpload(ctx, caller.user);
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void(), 401: ErrorOut, 404: ErrorOut },
      detail: { tags: ["users"], summary: "Delete My Avatar", description: "Remove the uploaded photo; the procedural avatar is shown again. 404 AVATAR_NOT_FOUND when there is none." },
    })
    .get("/api/v1/avatar/preview", ({ query }) => svgResponse(avatars.previewSvg({ ...query, size: query.size ?? 120 }), "public, max-age=86400"), {
      query: PreviewQuery,
      response: { 200: ImageOut("image/svg+xml") },
      detail: { summary: "Preview Avatar", description: "The procedural avatar for the given choices as image/svg+xml; choices left out are derived from `username`. Nothing is stored." },
    })
    .get("/u/:username/avatar", ({ params, query, redirect }) => {
      const answer = avatars.avatarFor(ctx, params.username, query.size ?? 96);
      if ("redirect" in answer) {
        const res = redirect(answer.redirect, 302) as Response;
        res.headers.set("cache-control", "public, max-age=300");
        return res;
      }
      return svgResponse(answer.svg, "public, max-age=300");
    }, {
      params: t.Object({ username: t.String({ maxLength: 64 }) }),
      query: t.Object({ size: t.Optional(IntInput({ minimum: 16, maximum: 512, default: 96 })) }),
      response: { 200: ImageOut("image/svg+xml"), 302: t.Void() },
      detail: {
        summary: "User Avatar",
        description: "A redirect to the uploaded rendition closest to `size`, else the procedural avatar as image/svg+xml. Never a 404: an unknown name gets a generated picture too.",
      },
    })
    .get("/avatars/:user_id/:file", async ({ params }) => {
      const m = /^(\d{1,4})\.webp$/.exec(params.file);
      const path = avatars.renditionPath(ctx, params.user_id, m ? Number(m[1]) : -1);
      const file = Bun.file(path);
      if (!(await file.exists())) throw new ApiError(404, "AVATAR_NOT_FOUND", "Avatar not found");
      return new Response(file, {
        headers: { "content-type": "image/webp", "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" },
      });
    }, {
      params: t.Object({ user_id: t.String({ maxLength: 64 }), file: t.String({ maxLength: 16 }) }),
      response: { 200: ImageOut("image/webp"), 404: ErrorOut },
      detail: { summary: "Avatar Rendition", description: "An uploaded avatar rendition: 32.webp, 96.webp or 256.webp (404 AVATAR_NOT_FOUND otherwise)." },
    });
