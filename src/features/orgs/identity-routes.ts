// An organisation's identity routes (spec Part 2 §4.3): domain verification, resource servers
// (RFC 8707 audiences) and delegation grants (RFC 8693 on-behalf-of policy). Admins and owners
// act; site admins read.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as delegation from "./delegation";
import * as domains from "./domains";
import {
  GrantParams,
  OrgDelegationGrantIn,
  OrgDelegationGrantOut,
  OrgDomainChallengeOut,
  OrgDomainIn,
  OrgDomainStartOut,
  OrgDomainVerifyOut,
  OrgGrantRevokedOut,
  OrgResourceDeletedOut,
  OrgResourceIn,
  OrgResourceOut,
  ResourceParams,
  SlugParams,
} from "./schemas";
import * as orgs from "./service";

const NOT_VISIBLE = "404 NOT_FOUND when there is no such organisation, or it is private and you are neither a member nor invited.";
const ADMINS = "admins and owners (403 FORBIDDEN otherwise)";
const READERS = "admins and owners, and site admins (403 FORBIDDEN otherwise)";

export const identityRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/orgs", tags: ["organisations"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/:slug/domain", ({ caller, params, body }) => {
      const row = domains.startChallenge(ctx, caller, params.slug, body);
      return { ...domains.challengeOut(ctx, row), ...domains.placement(row) };
    }, {
      auth: "required",
      rateLimit: "org_domain",
      params: SlugParams,
      body: OrgDomainIn,
      response: { 200: OrgDomainStartOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Start Org Domain Challenge",
        description:
          `Begin verifying a domain (${ADMINS}): a token and where to put it. dns_txt: a TXT record \`${domains.TXT_PREFIX}<token>\` at \`${domains.DNS_LABEL}.<domain>\`; ` +
          `http_wellknown: the token as the body of https://<domain>${domains.WELL_KNOWN_PATH} (HTTPS, status 200, no redirect). The challenge is pending for 7 days and supersedes the organisation's pending ones. ` +
          "400 INVALID_INPUT for a malformed or non-public domain name; 409 CONFLICT when another organisation has verified it. " + NOT_VISIBLE,
      },
    })
    .post("/:slug/domain/verify", async ({ caller, params }) => {
      const r = await domains.verify(ctx, caller, params.slug);
      const org = orgs.findOrg(ctx, r.challenge.orgId);
      return { ...domains.challengeOut(ctx, r.challenge), verified: r.verified, reason: r.reason, verified_domain: org?.verifiedDomain ?? null };
    }, {
      auth: "required",
      rateLimit: "org_domain_verify",
      params: SlugParams,
      response: { 200: OrgDomainVerifyOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Verify Org Domain",
        description:
          `Check the organisation's newest pending challenge (${ADMINS}). Found: verified true and the domain becomes the organisation's verified domain. Not found: verified false with the reason (recorded on the challenge); try again once the record or file is in place. ` +
          "404 NOT_FOUND when no challenge is pending; 409 CONFLICT when another organisation verified the domain first. " + NOT_VISIBLE,
      },
    })
    .get("/:slug/domain", ({ caller, params }) => domains.listChallenges(ctx, caller, params.slug).map((r) => domains.challengeOut(ctx, r)), {
      auth: "required",
      params: SlugParams,
      response: { 200: t.Array(OrgDomainChallengeOut), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "List Org Domain Challenges", description: `The 20 newest challenges with their status (verified, pending or expired), newest first (${READERS}). ${NOT_VISIBLE}` },
    })
    .get("/:slug/resources", ({ caller, params }) => delegation.listResources(ctx, caller, params.slug).map(delegation.resourceOut), {
      auth: "required",
      params: SlugParams,
      response: { 200: t.Array(OrgResourceOut), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "List Org Resources", description: `The organisation's registered resource-server audiences, oldest first (${READERS}). ${NOT_VISIBLE}` },
    })
    .post("/:slug/resources", ({ caller, params, body, set }) => {
      set.status = 201;
      return delegation.resourceOut(delegation.addResource(ctx, caller, params.slug, body));
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgResourceIn,
      response: { 201: OrgResourceOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Add Org Resource",
        description:
          `Register an RFC 8707 resource-server audience: the \`aud\` of the on-behalf-of tokens the organisation's grants allow (${ADMINS}). ` +
          `400 INVALID_INPUT unless an absolute URI without a fragment; 400 LIMIT_EXCEEDED past ${delegation.MAX_RESOURCES}; 409 CONFLICT when any organisation registered it. ` + NOT_VISIBLE,
      },
    })
    .delete("/:slug/resources/:resource_id", ({ caller, params }) => delegation.removeResource(ctx, caller, params.slug, params.resource_id), {
      auth: "required",
      params: ResourceParams,
      response: { 200: OrgResourceDeletedOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "Remove Org Resource", description: `Delete a resource by id and revoke the grants for it (${ADMINS}); idempotent: \`deleted\` says whether this call removed it. ${NOT_VISIBLE}` },
    })
    .get("/:slug/delegation-grants", ({ caller, params }) => delegation.listGrants(ctx, caller, params.slug).map(delegation.grantOut), {
      auth: "required",
      params: SlugParams,
      response: { 200: t.Array(OrgDelegationGrantOut), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "List Org Delegation Grants", description: `The organisation's on-behalf-of policy, newest first, revoked grants included (${READERS}). ${NOT_VISIBLE}` },
    })
    .post("/:slug/delegation-grants", ({ caller, params, body, set }) => {
      set.status = 201;
      return delegation.grantOut(delegation.addGrant(ctx, caller, params.slug, body));
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgDelegationGrantIn,
      response: { 201: OrgDelegationGrantOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Add Org Delegation Grant",
        description:
          `Authorise on-behalf-of tokens for one of the organisation's resources (${ADMINS}): the scopes they may carry, the minimum role that may have them minted (default admin) or one member, and their lifetime (default 900 s, clamped to ${delegation.DELEGATION_TTL_CEILING_S}). ` +
          "A member then exchanges their access token at POST /oauth/token with resource=<identifier>. 400 INVALID_INPUT for a resource the organisation has not registered or a malformed scope; 400 LIMIT_EXCEEDED past 50 active grants; 404 when the member named is not one. " +
          NOT_VISIBLE,
      },
    })
    .delete("/:slug/delegation-grants/:grant_id", ({ caller, params }) => delegation.revokeGrant(ctx, caller, params.slug, params.grant_id), {
      auth: "required",
      params: GrantParams,
      response: { 200: OrgGrantRevokedOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "Remove Org Delegation Grant", description: `Revoke a grant by id (${ADMINS}); idempotent: \`revoked\` says whether this call revoked it. Stops new tokens; issued ones live out their lifetime. ${NOT_VISIBLE}` },
    });
