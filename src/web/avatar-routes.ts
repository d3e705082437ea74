// The picture on /settings/profile (docs/decisions.md §176): uploading one through the avatars
// service, as POST /api/v1/users/me/avatar/upload does (the same checks, renditions and rate
// limits, charged to the same account), and removing it, as DELETE …/avatar/upload does. The
// upload is the one web form sent as multipart/form-data: this plugin opts in to it, with the
// avatars feature's size limit (and room for the form's other fields) enforced before the body is
// read past it, and the same origin and CSRF checks as every form (the token a field of the body).
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import * as avatars from "../features/avatars/service";
import { charge, rateLimitPlugin, subjectOf } from "../http/rate-limit";
import { layout } from "./account-layout";
import { refusedPage } from "./account-routes";
import { sync } from "./layout";
import { avatarView } from "./pages/avatar-form";
import { ProfileForm, savedProfile } from "./pages/part";
import { FORM_MAX_BYTES, failure, isSignedIn, page, seeOther, toSignIn, webSession, type SignedInWeb, type Web } from "./session";

const FORM = { parse: "none" as const, detail: { hide: true } };

/** The whole multipart body an upload may be: the largest file the avatars service takes, plus a form's worth of other fields. */
export const AVATAR_FORM_MAX_BYTES = avatars.MAX_UPLOAD_BYTES + FORM_MAX_BYTES;

/** What /settings/profile?notice= says after these forms. */
export const AVATAR_NOTICES: Record<string, string> = {
  "avatar-saved": "Your picture is uploaded.",
  "avatar-removed": "Your picture is removed; the one drawn from your username is shown again.",
};

export const avatarRoutes = (ctx: Ctx) => {
  const signIn = (web: Web) => toSignIn(web, "/settings/profile");

  /** The profile page again with a refusal (the service's status and message). */
  function refused(web: SignedInWeb, err: unknown): Response {
    const f = failure(err);
    const u = web.viewer.user;
    const html = layout(web, "Profile", sync(ProfileForm({ csrf: web.csrf, ...savedProfile(u), error: f.message, avatar: avatarView(u) })));
    return page(web, html, f.status, f.headers);
  }

  return new Elysia()
    .use(rateLimitPlugin(ctx))
    .use(webSession(ctx, refusedPage, { multipart: { maxBytes: AVATAR_FORM_MAX_BYTES } }))
    .post(
      "/settings/profile/avatar",
      async ({ web, request }) => {
        if (!isSignedIn(web)) return signIn(web);
        try {
          const file = web.files.get("file");
          if (!file || file.size === 0) throw new ApiError(400, "INVALID_INPUT", "Choose a picture file to upload");
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["avatar_upload", "avatar_upload_daily"]);
          await avatars.upload(ctx, web.viewer.user, file);
          ctx.log.info("avatar uploaded on the web", { user_id: web.viewer.user.id });
          return seeOther(web, "/settings/profile?notice=avatar-saved");
        } catch (err) {
          return refused(web, err);
        }
      },
      FORM,
    )
    .post(
      "/settings/profile/avatar/remove",
      async ({ web }) => {
        if (!isSignedIn(web)) return signIn(web);
        try {
          await avatars.removeUpload(ctx, web.viewer.user);
        } catch (err) {
          // No picture to remove: what was asked for is true (docs/decisions.md §155).
          if (!(err instanceof ApiError && err.code === "AVATAR_NOT_FOUND")) return refused(web, err);
        }
        return seeOther(web, "/settings/profile?notice=avatar-removed");
      },
      FORM,
    );
};
