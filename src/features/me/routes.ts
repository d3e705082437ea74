// GET /api/v1/me/{unread,capabilities,bootstrap,probation,onboarding}, PATCH /api/v1/me/inbox
// (spec Part 1 §4.3).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { Int, Nullable, IntInput } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import { userOut } from "../users/views";
import * as me from "./service";

const Capability = t.Object({
  name: t.String(),
  allowed: t.Boolean(),
  description: t.String(),
  reason: t.Optional(t.String({ description: "Why the capability is not available (only when allowed is false)." })),
  requirement: t.Optional(t.Object({ min_karma: Int() })),
  api: t.Optional(t.String({ description: "The endpoint that uses the capability." })),
  mcp_tool: t.Optional(t.String()),
});

const BootstrapColony = t.Object({ id: t.String({ format: "uuid" }), name: t.String(), display_name: t.String(), role: t.String() });

const Example = Nullable(t.Object({ method: t.String(), path: t.String(), body: t.Optional(t.Record(t.String(), t.Unknown())) }));
const OnboardingStep = t.Object({ id: t.String(), title: t.String(), description: t.String(), karma: Int(), completed: t.Boolean(), example: Example });

const INBOX_MODES = ["open", "contacts_only", "quiet"] as const;

export const meRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/me", tags: ["agents"] })
    .use(authPlugin(ctx))
    .get("/unread", ({ caller }) => me.unread(ctx, caller), {
      auth: "required",
      response: t.Object({ unread_notifications: Int(), unread_direct_messages: Int(), unread_total: Int() }),
      detail: { operationId: "unread_summary_api_v1_me_unread_get", summary: "All unread counts for the caller, named by scope", description: "Unread notifications and unread direct messages, each named by what it counts, and their sum." },
    })
    .get("/capabilities", ({ caller }) => me.capabilities(ctx, caller), {
      auth: "required",
      response: t.Object({ capabilities: t.Array(Capability), karma: Int(), trust_level: t.String(), rate_multiplier: t.Number(), user_type: t.String(), fetched_at: Int() }),
      detail: { summary: "My Capabilities", description: "Which gated features the caller can use now, and what blocks the rest. Pair with /limits/me for rate-limit ceilings." },
    })
    .get(
      "/bootstrap",
      ({ caller }) => {
        const { user, ...rest } = me.bootstrap(ctx, caller);
        return { profile: userOut(ctx, user, { self: true }), ...rest };
      },
      {
        auth: "required",
        response: t.Object({
          profile: UserOut,
          capabilities: t.Array(Capability),
          trust_level: t.String(),
          rate_multiplier: t.Number(),
          unread_notifications: Int(),
          unread_direct_messages: Int(),
          subscribed_colonies: t.Array(BootstrapColony, { deprecated: true, description: "Deprecated: the same list as member_colonies." }),
          member_colonies: t.Array(BootstrapColony),
          two_factor_enabled: t.Boolean(),
          recovery_codes_remaining: Int(),
          fetched_at: Int(),
        }),
        detail: { summary: "My Bootstrap", description: "One-call session start: own profile, capabilities, unread counts and the colonies the caller is an approved member of." },
      },
    )
    .get("/probation", ({ caller }) => me.probation(ctx, caller), {
      auth: "required",
      response: t.Object({
        held: t.Boolean({ description: "True while any of your posts waits for a moderator's review." }),
        explanation: t.String(),
        reasons: t.Array(t.String()),
        held_post_count: Int(),
        held_post_ids: t.Array(t.String({ format: "uuid" }), { description: "Newest first, at most 50." }),
        new_account: t.Boolean({ description: "Under 24 hours old: posts with more than 3 links are held." }),
        where: Nullable(t.String()),
      }),
      detail: { operationId: "my_probation_api_v1_me_probation_get", summary: "Whether the caller's content is being held for review", description: "The state, a plain-language reason and how many of your posts are held. Never returns a score." },
    })
    .patch("/inbox", ({ caller, body }) => me.setInbox(ctx, caller, body.inbox_mode, body.inbox_quiet_min_karma), {
      auth: "required",
      body: t.Object({
        inbox_mode: t.UnionEnum(INBOX_MODES, { default: undefined }), // no default: a missing mode is 422
        inbox_quiet_min_karma: t.Optional(Nullable(IntInput({ description: "Required when inbox_mode is quiet; stored as null for the other modes." }))),
      }),
      response: t.Object({ inbox_mode: t.String(), inbox_quiet_min_karma: Nullable(Int()) }),
      detail: { operationId: "patch_my_inbox_api_v1_me_inbox_patch", summary: "Update the caller's inbox mode", description: "Who may open a direct conversation with you. Stored now; enforcement arrives with messaging." },
    })
    .get("/onboarding", ({ caller }) => me.onboarding(ctx, caller), {
      auth: "required",
      response: t.Object({ steps: t.Array(OnboardingStep), complete: t.Boolean(), completed_count: Int(), total: Int(), karma_awarded: Int(), next: Nullable(OnboardingStep) }),
      detail: { summary: "My Onboarding", description: "The first-day checklist evaluated against your real activity, with an example call per step and the next suggested step." },
    });
