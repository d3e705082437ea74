// An organisation's identity routes (spec Part 2 §4.3): domain verification. Admins and owners
// act; site admins read.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as domains from "./domains";
import { OrgDomainChallengeOut, OrgDomainIn, OrgDomainStartOut, OrgDomainVerifyOut, SlugParams } from "./schemas";
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
    });
