// Domain verification (spec Part 2 §3 "Domain challenge", §4.3; docs/decisions.md §63). An admin
// starts a challenge for a domain with a method and receives a token and where to put it:
//   dns_txt         a TXT record `colony-domain-verification=<token>` at `_colony-verification.<domain>`
//   http_wellknown  the token as the body of https://<domain>/.well-known/colony-domain-verification.txt
// Verify looks for it (ctx.domains: node:dns, or an HTTPS GET through the SSRF guard that follows
// no redirect, with a 5-second timeout and a 4 KiB cap) and on success the domain becomes the
// organisation's verified domain. A challenge is pending for 7 days, then expired; the status is
// derived when read. The lookups run outside any transaction.
import { and, desc, eq, isNull, gt } from "drizzle-orm";
import { domainToASCII } from "node:url";
import { isIP } from "node:net";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { randomBase62, uuidv7 } from "../../core/ids";
import { isUniqueViolation } from "../../db/client";
import type { Caller } from "../auth/service";
import { findOrg, orgWithRole, type OrgRow } from "./service";
import { orgDomainChallenges, orgs, type DomainMethod } from "./tables";

const CHALLENGE_TTL_MS = 7 * DAY;
export const DNS_LABEL = "_colony-verification";
export const TXT_PREFIX = "colony-domain-verification=";
export const WELL_KNOWN_PATH = "/.well-known/colony-domain-verification.txt";
const RECENT = 20;

type ChallengeRow = typeof orgDomainChallenges.$inferSelect;
type ChallengeStatus = "verified" | "pending" | "expired";

const challengeStatus = (ctx: Ctx, row: ChallengeRow): ChallengeStatus =>
  row.verifiedAt !== null ? "verified" : row.expiresAt <= ctx.clock.now() ? "expired" : "pending";

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A domain name as stored: lower-case ASCII (IDNs in punycode), no trailing dot. 400 INVALID_INPUT otherwise. */
function normaliseDomain(raw: string): string {
  const trimmed = raw.trim().replace(/\.$/, "");
  if (/[/:@?#\s]/.test(trimmed)) throw invalid("Send the bare domain name (like example.com), without a scheme, port or path");
  const domain = domainToASCII(trimmed.toLowerCase());
  const labels = domain.split(".");
  const ok =
    domain.length > 0 &&
    domain.length <= 253 &&
    !isIP(domain) &&
    labels.length >= 2 &&
    labels.every((l) => LABEL_RE.test(l)) &&
    /[a-z]/.test(labels[labels.length - 1]) &&
    !["localhost", "local", "internal", "invalid", "test", "example"].includes(labels[labels.length - 1]);
  if (!ok) throw invalid("Not a public domain name");
  return domain;
}

/** Where the token goes, for the challenge's method. */
export function placement(row: Pick<ChallengeRow, "domain" | "method" | "token">) {
  if (row.method === "dns_txt") {
    const name = `${DNS_LABEL}.${row.domain}`;
    const value = `${TXT_PREFIX}${row.token}`;
    return {
      record_type: "TXT" as const,
      record_name: name,
      record_value: value,
      url: null,
      file_content: null,
      instructions: `Add a DNS TXT record named ${name} with the value ${value}, wait for it to be visible, then call POST /api/v1/orgs/{slug}/domain/verify.`,
    };
  }
  const url = `https://${row.domain}${WELL_KNOWN_PATH}`;
  return {
    record_type: null,
    record_name: null,
    record_value: null,
    url,
    file_content: row.token,
    instructions: `Serve the token ${row.token} as the body of ${url} (HTTPS with a valid certificate, status 200, no redirect), then call POST /api/v1/orgs/{slug}/domain/verify.`,
  };
}

export function challengeOut(ctx: Ctx, row: ChallengeRow) {
  return {
    id: row.id,
    domain: row.domain,
    method: row.method,
    status: challengeStatus(ctx, row),
    token: row.token,
    verified_at: iso(row.verifiedAt),
    expires_at: iso(row.expiresAt),
    created_at: iso(row.createdAt),
    last_checked_at: iso(row.lastCheckedAt),
    last_error: row.lastError,
  };
}

/** Another organisation holding `domain` as its verified domain; 409 CONFLICT. */
function assertDomainFree(ctx: Ctx, org: OrgRow, domain: string): void {
  const holder = ctx.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.verifiedDomain, domain)).get();
  if (holder && holder.id !== org.id) throw conflict(`${domain} is the verified domain of another organisation`);
}

/**
 * POST /orgs/{slug}/domain (admins and owners): a new challenge, which supersedes the
 * organisation's pending ones. 400 INVALID_INPUT for a malformed or non-public domain name; 409
 * CONFLICT when another organisation has verified it.
 */
export function startChallenge(ctx: Ctx, caller: Caller, slug: string, input: { domain: string; method: DomainMethod }): ChallengeRow {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  const domain = normaliseDomain(input.domain);
  assertDomainFree(ctx, org, domain);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    tx.update(orgDomainChallenges)
      .set({ expiresAt: now })
      .where(and(eq(orgDomainChallenges.orgId, org.id), isNull(orgDomainChallenges.verifiedAt), gt(orgDomainChallenges.expiresAt, now)))
      .run();
    return tx
      .insert(orgDomainChallenges)
      .values({ id: uuidv7(now), orgId: org.id, domain, method: input.method, token: randomBase62(32), expiresAt: now + CHALLENGE_TTL_MS, createdBy: caller.id, createdAt: now })
      .returning()
      .get();
  });
}

/** GET /orgs/{slug}/domain: the 20 newest challenges (admins and owners; site admins read). */
export function listChallenges(ctx: Ctx, caller: Caller, slug: string): ChallengeRow[] {
  const { org } = orgWithRole(ctx, caller, slug, "admin", { read: true });
  return ctx.db.select().from(orgDomainChallenges).where(eq(orgDomainChallenges.orgId, org.id)).orderBy(desc(orgDomainChallenges.createdAt)).limit(RECENT).all();
}

/** Looks for the token where the challenge's method puts it: null when found, else why not. */
async function probe(ctx: Ctx, row: ChallengeRow): Promise<string | null> {
  if (row.method === "dns_txt") {
    const name = `${DNS_LABEL}.${row.domain}`;
    let records: string[];
    try {
      records = await ctx.domains.txt(name);
    } catch (err) {
      return `The DNS lookup of ${name} failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    }
    if (records.some((r) => r.trim() === `${TXT_PREFIX}${row.token}`)) return null;
    return records.length ? `No TXT record at ${name} holds this challenge's token` : `No TXT record found at ${name}`;
  }
  const res = await ctx.domains.fetchHttps(row.domain, WELL_KNOWN_PATH);
  const url = `https://${row.domain}${WELL_KNOWN_PATH}`;
  if (res.status === null) return `${url} could not be fetched: ${res.error ?? "no answer"}`.slice(0, 500);
  if (res.status >= 300 && res.status < 400) return `${url} answered a redirect (${res.status}); redirects are not followed`;
  if (res.status !== 200) return `${url} answered ${res.status}`;
  const lines = (res.body ?? "").split(/\r?\n/).map((l) => l.trim());
  return lines.includes(row.token) ? null : `${url} does not hold this challenge's token`;
}

interface VerifyResult {
  verified: boolean;
  challenge: ChallengeRow;
  reason: string | null;
}

/**
 * POST /orgs/{slug}/domain/verify (admins and owners): checks the newest pending challenge. A
 * failed check is an answer (verified false and why, recorded on the challenge), not an error.
 * 404 NOT_FOUND when no challenge is pending; 409 CONFLICT when another organisation verified
 * the domain first.
 */
export async function verify(ctx: Ctx, caller: Caller, slug: string): Promise<VerifyResult> {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  const now = ctx.clock.now();
  const row = ctx.db
    .select()
    .from(orgDomainChallenges)
    .where(and(eq(orgDomainChallenges.orgId, org.id), isNull(orgDomainChallenges.verifiedAt), gt(orgDomainChallenges.expiresAt, now)))
    .orderBy(desc(orgDomainChallenges.createdAt))
    .limit(1)
    .get();
  if (!row) throw notFound("No pending domain challenge: start one with POST /api/v1/orgs/{slug}/domain");
  assertDomainFree(ctx, org, row.domain);
  const reason = await probe(ctx, row);
  // The organisation may have been deleted while the lookup ran.
  if (!findOrg(ctx, org.id)) throw notFound("Organisation not found");
  const checkedAt = ctx.clock.now();
  try {
    const challenge = ctx.db.transaction((tx) => {
      if (reason) {
        return tx.update(orgDomainChallenges).set({ lastCheckedAt: checkedAt, lastError: reason }).where(eq(orgDomainChallenges.id, row.id)).returning().get();
      }
      tx.update(orgs).set({ verifiedDomain: row.domain, domainVerifiedAt: checkedAt, updatedAt: checkedAt }).where(eq(orgs.id, org.id)).run();
      ctx.events.emit(tx, { type: "org_domain_verified", actorId: caller.id, subject: { type: "org", id: org.id }, payload: { org_id: org.id, slug: org.slug, domain: row.domain, method: row.method } });
      return tx.update(orgDomainChallenges).set({ verifiedAt: checkedAt, lastCheckedAt: checkedAt, lastError: null }).where(eq(orgDomainChallenges.id, row.id)).returning().get();
    });
    return { verified: !reason, challenge, reason };
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`${row.domain} is the verified domain of another organisation`);
    throw err;
  }
}
