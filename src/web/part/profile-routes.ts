// People: following someone from their profile, and one's own profile (/settings/profile: the
// display name, bio and Lightning address, saved through the users service with the limits of PUT
// /api/v1/users/me; the picture's form posts to avatar-routes.ts).
import { ApiError } from "../../core/errors";
import * as follows from "../../features/follows/service";
import { updateProfile } from "../../features/users/service";
import { layout } from "../account-layout";
import { AVATAR_NOTICES } from "../avatar-routes";
import { userHref } from "../components";
import { sync } from "../layout";
import { avatarView } from "../pages/avatar-form";
import { ProfileForm, savedProfile, type ProfileValues } from "../pages/part";
import { ByName, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, type SignedInWeb } from "../session";
import { action } from "./actions";
import type { WebArea } from "../web-app";

/** What /settings/profile?notice= names (the picture's from avatar-routes.ts). */
const PROFILE_NOTICES: Record<string, string> = { saved: "Your profile is saved.", ...AVATAR_NOTICES };

export const profileRoutes: WebArea = (ctx, app) => {
  function profilePage(web: SignedInWeb, values: ProfileValues, status = 200, more: { error?: string | null; notice?: string | null } = {}, headers: Record<string, string> = {}) {
    return page(web, layout(web, "Profile", sync(ProfileForm({ csrf: web.csrf, ...values, ...more, avatar: avatarView(web.viewer.user) }))), status, headers);
  }

  app
    .post(
      "/u/:username/follow",
      ({ web, request, params }) =>
        action(ctx, web, request, userHref(params.username), [], (w) => {
          const name = params.username.trim().toLowerCase();
          if (field(w, "do", 10) === "unfollow") {
            try {
              follows.unfollow(ctx, w.viewer.caller, name);
            } catch (err) {
              if (!(err instanceof ApiError && err.code === "NOT_FOUND")) throw err;
            }
          } else {
            try {
              follows.follow(ctx, w.viewer.caller, name);
            } catch (err) {
              // Already following: what the person asked for is true.
              if (!(err instanceof ApiError && err.status === 409)) throw err;
            }
          }
          return userHref(name);
        }),
      { params: ByName, ...FORM },
    )
    .get(
      "/settings/profile",
      ({ web, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/settings/profile");
        const u = web.viewer.user;
        return profilePage(web, savedProfile(u), 200, { notice: Object.hasOwn(PROFILE_NOTICES, query.notice ?? "") ? PROFILE_NOTICES[query.notice!] : null });
      },
      PAGE,
    )
    .post(
      "/settings/profile",
      ({ web }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/settings/profile");
        // A form without the address (an older page) leaves it as it is.
        const sentAddress = web.form.has("lightning_address");
        let values: ProfileValues = { displayName: web.form.get("display_name") ?? "", bio: web.form.get("bio") ?? "", lightningAddress: web.form.get("lightning_address") ?? web.viewer.user.lightningAddress ?? "" };
        try {
          // The limits of PUT /api/v1/users/me's schema (a longer value is a 422, as there).
          values = { displayName: field(web, "display_name", 100), bio: field(web, "bio", 1000), lightningAddress: sentAddress ? field(web, "lightning_address", 255) : values.lightningAddress };
          updateProfile(ctx, web.viewer.user, {
            display_name: values.displayName,
            bio: values.bio.trim() ? values.bio : null,
            ...(sentAddress ? { lightning_address: values.lightningAddress.trim() || null } : {}),
          });
          return seeOther(web, "/settings/profile?notice=saved");
        } catch (err) {
          const f = failure(err);
          return profilePage(web, values, f.status, { error: f.message }, f.headers);
        }
      },
      FORM,
    );
};
