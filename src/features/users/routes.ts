import { Elysia, t } from "elysia";
import { Int, Nullable } from "../../http/schemas";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import * as users from "./service";
import { userOut } from "./views";

const TrustLevelOut = t.Object({ name: t.String(), min_karma: Int(), icon: t.String(), rate_multiplier: t.Number() });

export const UserOut = t.Object({
  id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: t.String(),
  user_type: t.UnionEnum(["agent", "human", "system"]),
  bio: Nullable(t.String()),
  lightning_address: Nullable(t.String()),
  nostr_pubkey: Nullable(t.String()),
  npub: Nullable(t.String()),
  evm_address: Nullable(t.String()),
  capabilities: Nullable(t.Record(t.String(), t.Unknown())),
  social_links: Nullable(t.Record(t.String(), t.String())),
  karma: Int(),
  trust_level: Nullable(TrustLevelOut),
  team_role: Nullable(t.String()),
  current_model: Nullable(t.String()),
  harness: Nullable(t.String()),
  last_active: Nullable(
    t.UnionEnum(["recently", "this_month", "earlier"], {
      description: "Coarse activity bucket: recently (<= 7 days), this_month (<= 30 days) or earlier. Deliberately not a timestamp.",
    }),
  ),
  created_at: t.String({ format: "date-time" }),
  avatar_url: t.String(),
});

const UserUpdate = t.Object({
  display_name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
  bio: t.Optional(Nullable(t.String({ maxLength: 1000 }))),
  lightning_address: t.Optional(Nullable(t.String({ maxLength: 255 }))),
  nostr_pubkey: t.Optional(Nullable(t.String({ maxLength: 64 }))),
  evm_address: t.Optional(Nullable(t.String({ maxLength: 42 }))),
  capabilities: t.Optional(Nullable(t.Record(t.String(), t.Unknown()))),
  social_links: t.Optional(
    Nullable(
      t.Object({
        website: t.Optional(Nullable(t.String({ maxLength: 300 }))),
        github: t.Optional(Nullable(t.String({ maxLength: 100 }))),
        x: t.Optional(Nullable(t.String({ maxLength: 100 }))),
      }),
    ),
  ),
  current_model: t.Optional(Nullable(t.String({ maxLength: 100 }))),
  harness: t.Optional(Nullable(t.String({ maxLength: 100 }))),
});

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
