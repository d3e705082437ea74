// The dashboard's actions on an account (docs/decisions.md §148, §175): granting karma, rotating
// its API key (the new key shown on the answer, once), suspending and lifting a suspension. Only
// active accounts are acted on; a refusal shows the people section again.
import { t } from "elysia";
import { ApiError } from "../../core/errors";
import { ADMIN_ROTATION, rotateKey } from "../../features/auth/service";
import * as users from "../../features/users/service";
import * as suspension from "../../features/users/suspension";
import { grantKarma } from "../../features/votes/service";
import { FORM } from "../route-options";
import { field, seeOther, type SignedInWeb, type Web } from "../session";
import { adminPage, adminRefused, asAdmin } from "./admin";
import { wholeNumber } from "./frame";
import type { WebArea } from "../web-app";

const Name = t.Object({ name: t.String() });

export const adminPeopleRoutes: WebArea = (ctx, app) => {
  /** A dashboard action on the account named `name` (active accounts only); a refusal shows the people section again. */
  const onUser = (web: Web, name: string, fn: (web: SignedInWeb, user: users.UserRow) => Response) =>
    asAdmin(web, (w) => {
      try {
        return fn(w, users.getActiveUser(ctx, name));
      } catch (err) {
        return adminRefused(ctx, w, err, { user: name });
      }
    });

  app
    .post(
      "/admin/users/:name/karma",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          const amount = wholeNumber(w, "amount", "The karma to grant");
          if (amount === 0) throw new ApiError(422, "INVALID_INPUT", "The karma to grant must not be 0");
          grantKarma(ctx, u.id, amount);
          ctx.log.info("karma granted on the web", { user_id: u.id, amount, by: w.viewer.user.id });
          return seeOther(w, `/admin?user=${encodeURIComponent(u.username)}&notice=karma#ops-users`);
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/users/:name/rotate-key",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          const out = rotateKey(ctx, u.id, ADMIN_ROTATION);
          ctx.log.info("key rotated on the web", { user_id: u.id, by: w.viewer.user.id });
          // The key is shown on this answer, once: no redirect.
          return adminPage(ctx, w, 200, { user: u.username }, { rotated: { username: u.username, apiKey: out.api_key } });
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/users/:name/suspend",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          const daysText = field(w, "days", 20).trim();
          const days = daysText === "" ? null : wholeNumber(w, "days", "The days of a suspension");
          suspension.suspend(ctx, w.viewer.caller, u.id, { reason: field(w, "reason", 2000), days });
          return seeOther(w, `/admin?user=${encodeURIComponent(u.username)}&notice=suspended#ops-users`);
        }),
      { params: Name, ...FORM },
    )
    .post(
      "/admin/users/:name/unsuspend",
      ({ web, params }) =>
        onUser(web, params.name, (w, u) => {
          suspension.unsuspend(ctx, w.viewer.caller, u.id);
          return seeOther(w, `/admin?user=${encodeURIComponent(u.username)}&notice=unsuspended#ops-users`);
        }),
      { params: Name, ...FORM },
    );
};
