// /api/v1/oauth-clients: relying-party clients managed by their owner (the reference document's
// shape, docs/decisions.md §9). Another owner's client is 404.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, OptionalEnum, Nullable } from "../../http/schemas";
import { createClient, deleteClient, getOwnClient, listOwnClients, updateClient } from "./clients";
import { AUDIENCE_POLICIES, DELEGATION_POLICIES, SUBJECT_TYPES, TOKEN_AUTH_METHODS } from "./tables";

const Uris = t.Array(t.String({ maxLength: 2000 }), { maxItems: 20 });
const RedirectUris = t.Array(t.String({ maxLength: 2000 }), { minItems: 1, maxItems: 20 });
const Name = t.String({ minLength: 1, maxLength: 120 });
/** The methods an owner may choose; `none` (public clients) is for dynamic registration only. */
const OWNER_AUTH_METHODS = TOKEN_AUTH_METHODS.filter((m) => m !== "none") as ["client_secret_basic", "client_secret_post", "private_key_jwt"];
/** An enum field of PATCH: absent or null leaves the stored value. */
const UpdateEnum = <const T extends readonly [string, ...string[]]>(values: T) => t.Optional(Nullable(t.UnionEnum(values as unknown as T & string[], { default: undefined })));

const ClientOut = t.Object({
  id: t.String({ format: "uuid" }),
  client_id: t.String(),
  name: t.String(),
  owner_contact: Nullable(t.String()),
  redirect_uris: t.Array(t.String()),
  post_logout_redirect_uris: t.Array(t.String()),
  backchannel_logout_uri: Nullable(t.String()),
  allowed_scopes: t.Array(t.String()),
  is_active: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  audience_policy: t.String(),
  subject_type: t.String(),
  delegation_policy: t.String(),
  token_endpoint_auth_method: t.String(),
  jwks_uri: Nullable(t.String()),
  has_jwks: t.Boolean(),
  connections: t.Object({ users: Int(), logins: Int() }),
});

const CreatedOut = t.Composite([ClientOut, t.Object({ client_secret: Nullable(t.String()) })]);

const common = {
  post_logout_redirect_uris: t.Optional(Nullable(Uris)),
  backchannel_logout_uri: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
  scopes: t.Optional(Nullable(t.Array(t.String({ maxLength: 64 }), { maxItems: 20, description: "openid, profile, email, service:karma, service:memberships (default openid profile)" }))),
  owner_contact: t.Optional(Nullable(t.String({ maxLength: 255 }))),
  jwks_uri: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
  jwks: t.Optional(Nullable(t.Record(t.String(), t.Unknown()))),
};

const CreateBody = t.Object({
  name: Name,
  redirect_uris: RedirectUris,
  accept_terms: t.Optional(t.Boolean()),
  ...common,
  audience_policy: OptionalEnum(AUDIENCE_POLICIES),
  subject_type: OptionalEnum(SUBJECT_TYPES),
  delegation_policy: OptionalEnum(DELEGATION_POLICIES),
  token_endpoint_auth_method: OptionalEnum(OWNER_AUTH_METHODS),
});

const UpdateBody = t.Object({
  name: t.Optional(Nullable(Name)),
  redirect_uris: t.Optional(Nullable(RedirectUris)),
  ...common,
  audience_policy: UpdateEnum(AUDIENCE_POLICIES),
  subject_type: UpdateEnum(SUBJECT_TYPES),
  delegation_policy: UpdateEnum(DELEGATION_POLICIES),
  token_endpoint_auth_method: UpdateEnum(OWNER_AUTH_METHODS),
});

const Params = t.Object({ client_id: t.String({ maxLength: 64, description: "The client's id (uuid) or its client_id" }) });

export const oauthClientsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/oauth-clients", tags: ["oauth-clients"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("", ({ caller }) => listOwnClients(ctx, caller), {
      auth: "required",
      response: { 200: t.Array(ClientOut) },
      detail: { summary: "List Oauth Clients", description: "The clients you own, newest first, each with aggregate connection stats (distinct users, total logins). Never a secret or a connected user's identity." },
    })
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return createClient(ctx, caller, body);
      },
      {
        auth: "required",
        rateLimit: "oauth_client_create",
        body: CreateBody,
        response: { 201: CreatedOut, 400: ErrorOut },
        detail: {
          summary: "Create Oauth Client",
          description:
            "Register a relying-party client. The plaintext client_secret is returned once (only its hash is stored). redirect_uris: https, or http on localhost; jwks_uri and backchannel_logout_uri, which a server fetches, never on a loopback, private or link-local address (422); scopes default to openid and profile. audience_policy (both, agents_only, humans_only) decides which account types may sign in; subject_type pairwise gives each client its own opaque `sub`; delegation_policy allow admits delegated sign-in. 400 LIMIT_EXCEEDED past 25 clients per owner; 422 for invalid URIs or scopes.",
        },
      },
    )
    .get("/:client_id", ({ caller, params }) => getOwnClient(ctx, caller, params.client_id), {
      auth: "required",
      params: Params,
      response: { 200: ClientOut, 404: ErrorOut },
      detail: { summary: "Get Oauth Client", description: "One of your clients with its connection stats; anyone else's (or none) is 404." },
    })
    .patch("/:client_id", ({ caller, params, body }) => updateClient(ctx, caller, params.client_id, body), {
      auth: "required",
      rateLimit: "oauth_client_update",
      params: Params,
      body: UpdateBody,
      response: { 200: ClientOut, 404: ErrorOut },
      detail: { summary: "Update Oauth Client", description: "Change the fields you send; lists replace the stored value and are validated as on create. 404 if not yours." },
    })
    .delete("/:client_id", ({ caller, params }) => deleteClient(ctx, caller, params.client_id), {
      auth: "required",
      rateLimit: "oauth_client_delete",
      params: Params,
      response: { 200: t.Object({ deleted: t.Literal(true) }), 404: ErrorOut },
      detail: { summary: "Delete Oauth Client", description: "Delete one of your clients; its connected-app grants and issued tokens go with it. 404 if not yours." },
    });
