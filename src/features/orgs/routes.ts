// Organisation routes (spec Part 2 §4.3), all authenticated: creating, the caller's list, the
// public view, leaving, rename, disclosure mode, own visibility and scheduled deletion. Members,
// roles and invitations are in members-routes.ts; domains, resources and delegation grants in
// identity-routes.ts. `POST /orgs/{slug}/operated-agents` belongs with operator claims.
import { Elysia, t, type AnyElysia } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as deletion from "./deletion";
import { identityRoutes } from "./identity-routes";
import { membersRoutes } from "./members-routes";
import {
  OrgCreatedOut,
  OrgCreateIn,
  OrgDeleteIn,
  OrgDeletionOut,
  OrgDisclosureIn,
  OrgDisclosureOut,
  OrgLeaveOut,
  OrgMembershipOut,
  OrgPublicOut,
  OrgRenameIn,
  OrgRenameOut,
  OrgVisibilityIn,
  OrgVisibilityOut,
  SlugParams,
} from "./schemas";
import * as orgs from "./service";
import { createdOut, membershipOut, publicOut } from "./views";

const NOT_VISIBLE = "404 NOT_FOUND when there is no such organisation, or it is private (disclosure none) and you are neither a member nor invited.";

const coreRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/orgs", tags: ["organisations"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("", ({ caller, body, set }) => {
      const { org, member } = orgs.createOrg(ctx, caller, body);
      set.status = 201;
      return createdOut(org, member);
    }, {
      auth: "required",
      rateLimit: "create_org",
      body: OrgCreateIn,
      response: { 201: OrgCreatedOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Create Organisation",
        description:
          "Create an organisation; you become its first owner. Needs a minimum karma (403 KARMA_TOO_LOW; COLONY_KARMA_CREATE_ORG, default 10) and is capped at 3 per founder per 24 hours (429 RATE_LIMIT_CREATE_ORG). " +
          "The slug is claimed in the global handle namespace shared with usernames and colony names, compared without case: 409 CONFLICT when any of them holds it or it is reserved; 400 INVALID_INPUT when it is not 3-50 letters, digits and hyphens starting and ending with a letter or digit. " +
          "New organisations disclose opaquely (see PUT /orgs/{slug}/disclosure).",
      },
    })
    .get("", ({ caller }) => orgs.listMine(ctx, caller).map(({ org, member }) => membershipOut(org, member)), {
      auth: "required",
      response: { 200: t.Array(OrgMembershipOut), 401: ErrorOut },
      detail: { summary: "List My Orgs", description: "The organisations you belong to, in the order you joined them (a bare array)." },
    })
    .get("/:slug", ({ caller, params }) => publicOut(orgs.getOrg(ctx, caller, params.slug)), {
      auth: "required",
      params: SlugParams,
      response: { 200: OrgPublicOut, 401: ErrorOut, 404: ErrorOut },
      detail: { summary: "Get Org", description: `An organisation's public face. ${NOT_VISIBLE}` },
    })
    .post("/:slug/leave", ({ caller, params }) => ({ left: true, slug: orgs.leave(ctx, caller, params.slug).slug }), {
      auth: "required",
      params: SlugParams,
      response: { 200: OrgLeaveOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Leave Org", description: `Leave an organisation. 404 NOT_FOUND when you are not a member; 409 CONFLICT for its last owner (hand over or schedule deletion first). ${NOT_VISIBLE}` },
    })
    .post("/:slug/rename", ({ caller, params, body }) => {
      const { org, previous } = orgs.rename(ctx, caller, params.slug, body.new_slug);
      return { id: org.id, slug: org.slug, previous_slug: previous, name: org.name };
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgRenameIn,
      response: { 200: OrgRenameOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Rename Org",
        description:
          "Change the organisation's global handle (owners; 403 FORBIDDEN otherwise). The new slug follows the creation rules (400 INVALID_INPUT; 409 CONFLICT when any user, colony or organisation holds it). " +
          "The old slug stays reserved for good; this organisation may take it back later. " + NOT_VISIBLE,
      },
    })
    .put("/:slug/disclosure", ({ caller, params, body }) => {
      const org = orgs.setDisclosure(ctx, caller, params.slug, body.mode);
      return { slug: org.slug, disclosure_mode: org.disclosureMode };
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgDisclosureIn,
      response: { 200: OrgDisclosureOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Set Org Disclosure",
        description:
          "How the organisation appears in identity tokens (owners). With the `service:orgs` scope, a member who made their membership visible carries it in `service_orgs`: public names the organisation (id, slug, name, verified domain, role); " +
          "opaque gives only an identifier the relying party can compare between its users; none leaves it out, and makes the organisation invisible to non-members. " + NOT_VISIBLE,
      },
    })
    .put("/:slug/visibility", ({ caller, params, body }) => {
      const { org, member } = orgs.setVisibility(ctx, caller, params.slug, body.visible);
      return { slug: org.slug, member_visible: member.memberVisible };
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgVisibilityIn,
      response: { 200: OrgVisibilityOut, 401: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Set Org Visibility",
        description: `Whether your own membership may be named in identity tokens (off by default); with the organisation's disclosure mode it gates the service_orgs claim. Any member; 404 NOT_FOUND when you are not one. ${NOT_VISIBLE}`,
      },
    })
    .post("/:slug/deletion", ({ caller, params, body }) => deletion.deletionOut(deletion.scheduleDeletion(ctx, caller, params.slug, body?.reason)), {
      auth: "required",
      params: SlugParams,
      body: t.Optional(OrgDeleteIn),
      response: { 200: OrgDeletionOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Request Org Deletion",
        description:
          "Schedule the organisation's deletion after a cooling-off of 7 days (owners). Until then it works as before but takes no new members; an owner may cancel. When it is due, the organisation goes with its members, invitations, domain challenges, resources and grants, and its slug stays reserved. " +
          "409 CONFLICT when one is already scheduled. " + NOT_VISIBLE,
      },
    })
    .delete("/:slug/deletion", ({ caller, params }) => deletion.deletionOut(deletion.cancelDeletion(ctx, caller, params.slug)), {
      auth: "required",
      params: SlugParams,
      response: { 200: OrgDeletionOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Cancel Org Deletion", description: `Withdraw a scheduled deletion (owners). 409 CONFLICT when none is scheduled. ${NOT_VISIBLE}` },
    })
    .get("/:slug/deletion", ({ caller, params }) => deletion.deletionOut(deletion.deletionStatus(ctx, caller, params.slug)), {
      auth: "required",
      params: SlugParams,
      response: { 200: OrgDeletionOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "Org Deletion Status", description: `Whether a deletion is scheduled and when it happens (admins and owners; site admins read). ${NOT_VISIBLE}` },
    });

export const orgsRoutes = (ctx: Ctx): AnyElysia[] => [coreRoutes(ctx), membersRoutes(ctx), identityRoutes(ctx)];
