// Resource servers and delegation grants (spec Part 2 §4.3; docs/decisions.md §64, §65).
//
// A resource is an RFC 8707 audience the organisation runs: an absolute URI without a fragment,
// belonging to one organisation on the whole instance, at most 20 per organisation. A delegation
// grant is the organisation's RFC 8693 on-behalf-of policy for one of its resources: which scopes
// may be asked for, from which role up (or for one member only), and for how long a token lives
// (clamped to a ceiling of one hour). The identity provider (oauth/exchange.ts) asks
// `delegationFor` whether a member may have a token minted for a resource, and issues one only
// under a matching active grant: sub is the organisation, act the member, aud the resource.
import { and, asc, count, desc, eq } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import { isUniqueViolation } from "../../db/client";
import type { Caller } from "../auth/service";
import { atLeast, findOrg, membership, orgWithRole, userByRef, type OrgRow } from "./service";
import { orgDelegationGrants, orgResources, type OrgRole } from "./tables";

export const MAX_RESOURCES = 20;
const MAX_GRANTS = 50;
/** The org-delegation ceiling: no on-behalf-of token lives longer. */
export const DELEGATION_TTL_CEILING_S = 3600;
const DELEGATION_TTL_DEFAULT_S = 900;
/** A scope token of RFC 6749 §3.3 (printable ASCII without space, quote or backslash). */
const SCOPE_RE = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
const MAX_SCOPES = 20;

type ResourceRow = typeof orgResources.$inferSelect;
type GrantRow = typeof orgDelegationGrants.$inferSelect;

export const resourceOut = (r: ResourceRow) => ({ id: r.id, identifier: r.identifier, label: r.label, created_at: iso(r.createdAt) });

export const grantOut = (g: GrantRow) => ({
  id: g.id,
  resource: g.resource,
  allowed_scopes: g.allowedScopes,
  min_role: g.minRole,
  max_ttl_seconds: g.maxTtlSeconds,
  member_user_id: g.memberUserId,
  is_active: g.isActive,
  created_at: iso(g.createdAt),
  revoked_at: iso(g.revokedAt),
});

/** An RFC 8707 resource indicator: an absolute URI without a fragment. 400 INVALID_INPUT otherwise. */
function checkResourceIdentifier(raw: string): string {
  const identifier = raw.trim();
  let url: URL;
  try {
    url = new URL(identifier);
  } catch {
    throw invalid("The identifier must be an absolute URI (like https://api.example.com)");
  }
  if (identifier.includes("#") || url.hash) throw invalid("A resource identifier must not have a fragment (RFC 8707)");
  if (!/^[a-z][a-z0-9+.-]*:/i.test(identifier)) throw invalid("The identifier must be an absolute URI");
  return identifier;
}

// ---------------------------------------------------------------------------------------------
// Resources

/** GET /orgs/{slug}/resources, oldest first (admins and owners; site admins read). */
export function listResources(ctx: Ctx, caller: Caller, slug: string): ResourceRow[] {
  const { org } = orgWithRole(ctx, caller, slug, "admin", { read: true });
  return ctx.db.select().from(orgResources).where(eq(orgResources.orgId, org.id)).orderBy(asc(orgResources.createdAt)).all();
}

/**
 * POST /orgs/{slug}/resources (admins and owners). 400 INVALID_INPUT for a bad identifier, 400
 * LIMIT_EXCEEDED past 20, 409 CONFLICT when any organisation registered it.
 */
export function addResource(ctx: Ctx, caller: Caller, slug: string, input: { identifier: string; label?: string | null }): ResourceRow {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  const identifier = checkResourceIdentifier(input.identifier);
  if (ctx.db.select({ id: orgResources.id }).from(orgResources).where(eq(orgResources.identifier, identifier)).get()) throw conflict("This resource identifier is already registered");
  const n = ctx.db.select({ n: count() }).from(orgResources).where(eq(orgResources.orgId, org.id)).get()!.n;
  if (n >= MAX_RESOURCES) throw invalid(`An organisation registers at most ${MAX_RESOURCES} resources`, "LIMIT_EXCEEDED");
  const now = ctx.clock.now();
  try {
    return ctx.db
      .insert(orgResources)
      .values({ id: uuidv7(now), orgId: org.id, identifier, label: input.label?.trim() || null, createdBy: caller.id, createdAt: now })
      .returning()
      .get();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This resource identifier is already registered");
    throw err;
  }
}

/**
 * DELETE /orgs/{slug}/resources/{id} (admins and owners; idempotent). The organisation's grants
 * for it are revoked with it. `deleted` says whether this call removed it; another
 * organisation's id is as unknown.
 */
export function removeResource(ctx: Ctx, caller: Caller, slug: string, id: string): { id: string; deleted: boolean } {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  if (!isUuid(id)) return { id, deleted: false };
  const gone = ctx.db.transaction((tx) => {
    const row = tx
      .delete(orgResources)
      .where(and(eq(orgResources.id, id.toLowerCase()), eq(orgResources.orgId, org.id)))
      .returning({ identifier: orgResources.identifier })
      .get();
    if (row) {
      tx.update(orgDelegationGrants)
        .set({ isActive: false, revokedAt: ctx.clock.now() })
        .where(and(eq(orgDelegationGrants.orgId, org.id), eq(orgDelegationGrants.resource, row.identifier), eq(orgDelegationGrants.isActive, true)))
        .run();
    }
    return row;
  });
  return { id, deleted: !!gone };
}

// ---------------------------------------------------------------------------------------------
// Grants

interface GrantInput {
  resource: string;
  scopes: string[];
  min_role?: OrgRole;
  max_ttl_seconds?: number | null;
  member_user_id?: string | null;
}

/** GET /orgs/{slug}/delegation-grants, newest first, revoked ones included (admins and owners; site admins read). */
export function listGrants(ctx: Ctx, caller: Caller, slug: string): GrantRow[] {
  const { org } = orgWithRole(ctx, caller, slug, "admin", { read: true });
  return ctx.db.select().from(orgDelegationGrants).where(eq(orgDelegationGrants.orgId, org.id)).orderBy(desc(orgDelegationGrants.createdAt)).all();
}

/**
 * POST /orgs/{slug}/delegation-grants (admins and owners). The resource must be one the
 * organisation registered and the scopes RFC 6749 scope tokens (400 INVALID_INPUT); the member,
 * when named, a member (404); at most 50 active grants (400 LIMIT_EXCEEDED). The lifetime is
 * clamped to the ceiling.
 */
export function addGrant(ctx: Ctx, caller: Caller, slug: string, input: GrantInput): GrantRow {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  const resource = input.resource.trim();
  if (!ctx.db.select({ id: orgResources.id }).from(orgResources).where(and(eq(orgResources.orgId, org.id), eq(orgResources.identifier, resource))).get()) {
    throw invalid("The resource must be one of the organisation's registered resources (POST /orgs/{slug}/resources)");
  }
  const scopes = [...new Set(input.scopes.map((s) => s.trim()))];
  const bad = scopes.find((s) => !SCOPE_RE.test(s));
  if (bad !== undefined) throw invalid(`Not a scope token: ${JSON.stringify(bad)}`);
  if (scopes.length > MAX_SCOPES) throw invalid(`At most ${MAX_SCOPES} scopes`);
  let memberUserId: string | null = null;
  if (input.member_user_id) {
    const user = userByRef(ctx, input.member_user_id);
    if (!membership(ctx, org.id, user.id)) throw notFound(`@${user.username} is not a member of this organisation`);
    memberUserId = user.id;
  }
  const active = ctx.db.select({ n: count() }).from(orgDelegationGrants).where(and(eq(orgDelegationGrants.orgId, org.id), eq(orgDelegationGrants.isActive, true))).get()!.n;
  if (active >= MAX_GRANTS) throw invalid(`An organisation holds at most ${MAX_GRANTS} active delegation grants`, "LIMIT_EXCEEDED");
  const ttl = Math.min(input.max_ttl_seconds ?? DELEGATION_TTL_DEFAULT_S, DELEGATION_TTL_CEILING_S);
  const now = ctx.clock.now();
  return ctx.db
    .insert(orgDelegationGrants)
    .values({ id: uuidv7(now), orgId: org.id, resource, allowedScopes: scopes, minRole: input.min_role ?? "admin", maxTtlSeconds: ttl, memberUserId, isActive: true, createdBy: caller.id, createdAt: now })
    .returning()
    .get();
}

/** DELETE /orgs/{slug}/delegation-grants/{id} (admins and owners; idempotent): stops new mints; the row stays, inactive. */
export function revokeGrant(ctx: Ctx, caller: Caller, slug: string, id: string): { id: string; revoked: boolean } {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  if (!isUuid(id)) return { id, revoked: false };
  const row = ctx.db
    .update(orgDelegationGrants)
    .set({ isActive: false, revokedAt: ctx.clock.now() })
    .where(and(eq(orgDelegationGrants.id, id.toLowerCase()), eq(orgDelegationGrants.orgId, org.id), eq(orgDelegationGrants.isActive, true)))
    .returning({ id: orgDelegationGrants.id })
    .get();
  return { id, revoked: !!row };
}

// ---------------------------------------------------------------------------------------------
// The identity provider's question

type DelegationDecision =
  | { ok: true; org: OrgRow; role: OrgRole; grant: GrantRow; scopes: string[]; ttlSeconds: number }
  | { ok: false; error: "invalid_target" | "invalid_scope"; reason: string };

/**
 * May `userId` have an on-behalf-of token minted for `resource` with `requested` scopes (none
 * asked: everything the grant allows)? Only under an active grant of the organisation that
 * registered the resource, for the member's role (or naming them), covering every scope asked.
 * Among matching grants the one with the longest lifetime wins.
 */
export function delegationFor(ctx: Ctx, userId: string, resource: string, requested: readonly string[]): DelegationDecision {
  const res = ctx.db.select().from(orgResources).where(eq(orgResources.identifier, resource)).get();
  const org = res ? findOrg(ctx, res.orgId) : null;
  if (!res || !org) return { ok: false, error: "invalid_target", reason: "No organisation has registered this resource" };
  const member = membership(ctx, org.id, userId);
  if (!member) return { ok: false, error: "invalid_target", reason: "You are not a member of the organisation that runs this resource" };
  const grants = ctx.db
    .select()
    .from(orgDelegationGrants)
    .where(and(eq(orgDelegationGrants.orgId, org.id), eq(orgDelegationGrants.resource, resource), eq(orgDelegationGrants.isActive, true)))
    .all()
    .filter((g) => atLeast(member.role, g.minRole) && (g.memberUserId === null || g.memberUserId === userId));
  if (!grants.length) return { ok: false, error: "invalid_target", reason: "No delegation grant of the organisation covers this resource for your role" };
  const covering = grants
    .filter((g) => requested.every((s) => g.allowedScopes.includes(s)))
    .sort((a, b) => b.maxTtlSeconds - a.maxTtlSeconds || b.createdAt - a.createdAt);
  if (!covering.length) return { ok: false, error: "invalid_scope", reason: "No delegation grant of the organisation allows every scope asked for" };
  const grant = covering[0];
  const scopes = requested.length ? [...requested] : [...grant.allowedScopes];
  return { ok: true, org, role: member.role, grant, scopes, ttlSeconds: Math.min(grant.maxTtlSeconds, DELEGATION_TTL_CEILING_S) };
}
