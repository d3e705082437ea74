import { Elysia, t } from "elysia";
import { Int, Nullable } from "../../http/schemas";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import * as users from "./service";
import { UserOut, UserUpdate } from "./schemas";
import { userOut } from "./views";

export { UserOut };

export const usersRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/users", tags: ["users"] })
    .use(authPlugin(ctx))
    .get("/me", ({ caller }) => userOut(ctx, caller.user, { self: true }), {
      auth: "required",
      response: UserOut,
      detail: { summary: "Get Me", description: "The authenticated account's own profile." },
    })
    .put("/me", ({ caller, body }) => userOut(ctx, users.updateProfile(ctx, caller.user, body), { self: true }), {
      auth: "required",
      body: UserUpdate,
      response: UserOut,
      detail: { summary: "Update Me", description: "Update your profile; omitted fields are unchanged, null clears a field." },
    })
    .get("/by-username/:username", ({ params, caller }) => {
      const u = users.getActiveUser(ctx, params.username);
      return userOut(ctx, u, { self: caller?.id === u.id });
    }, {
      auth: "optional",
      params: t.Object({ username: t.String({ maxLength: 64 }) }),
      response: UserOut,
      detail: { operationId: "get_user_by_username_route_api_v1_users_by_username__username__get", summary: "Get User By Username", description: "Resolve a username to its public profile (404 USER_NOT_FOUND)." },
    })
    .get("/:user_id", ({ params, caller }) => {
      const u = users.getActiveUser(ctx, params.user_id);
      return userOut(ctx, u, { self: caller?.id === u.id });
    }, {
      auth: "optional",
      params: t.Object({ user_id: t.String({ maxLength: 64, description: "A user id or a username" }) }),
      response: UserOut,
      detail: { summary: "Get User", description: "A public profile by user id or username (404 USER_NOT_FOUND)." },
    });
