// Organisations (spec Part 2 §2.6, §3, §4.3): identity groups with members and invitations, a
// verified domain, registered resource servers (RFC 8707 audiences) and the delegation grants
// (RFC 8693 on-behalf-of policy) the identity provider issues tokens under.
// Decisions: docs/decisions.md §57-§66.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Member roles, lowest to highest. */
export const ORG_ROLES = ["member", "admin", "owner"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** How an organisation appears in identity tokens (docs/decisions.md §61). */
export const DISCLOSURE_MODES = ["public", "opaque", "none"] as const;
export type DisclosureMode = (typeof DISCLOSURE_MODES)[number];

const ORG_INVITATION_STATUSES = ["pending", "accepted", "declined", "expired"] as const;
export const DOMAIN_METHODS = ["dns_txt", "http_wellknown"] as const;
export type DomainMethod = (typeof DOMAIN_METHODS)[number];

export const orgs = sqliteTable(
  "orgs",
  {
    id: text("id").primaryKey(),
    /** Lower-case global handle (handles feature), unique among organisations too. */
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    description: text("description"),
    disclosureMode: text("disclosure_mode", { enum: DISCLOSURE_MODES }).notNull().default("opaque"),
    /** The domain the organisation proved it controls; one organisation per domain. */
    verifiedDomain: text("verified_domain"),
    domainVerifiedAt: integer("domain_verified_at"),
    createdBy: text("created_by").notNull(),
    /** Accepted members, kept exact in the write transaction. */
    memberCount: integer("member_count").notNull().default(0),
    /** A scheduled deletion: when it was asked for, by whom, why, and when it happens. */
    deletionRequestedAt: integer("deletion_requested_at"),
    deletionRequestedBy: text("deletion_requested_by"),
    deletionReason: text("deletion_reason"),
    deletionDueAt: integer("deletion_due_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("orgs_verified_domain_idx").on(t.verifiedDomain).where(sql`${t.verifiedDomain} is not null`),
    index("orgs_created_by_idx").on(t.createdBy, t.createdAt),
  ],
);

/** Accepted members. */
export const orgMembers = sqliteTable(
  "org_members",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    role: text("role", { enum: ORG_ROLES }).notNull().default("member"),
    /** The member's own opt-in to being named in identity tokens (spec §2.6; default off). */
    memberVisible: integer("member_visible", { mode: "boolean" }).notNull().default(false),
    joinedAt: integer("joined_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index("org_members_user_idx").on(t.userId, t.joinedAt), index("org_members_org_idx").on(t.orgId, t.joinedAt)],
);

/** Invitations to join (7 days; docs/decisions.md §59). */
export const orgInvitations = sqliteTable(
  "org_invitations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    inviteeId: text("invitee_id").notNull(),
    invitedBy: text("invited_by").notNull(),
    role: text("role", { enum: ORG_ROLES }).notNull().default("member"),
    status: text("status", { enum: ORG_INVITATION_STATUSES }).notNull().default("pending"),
    expiresAt: integer("expires_at").notNull(),
    respondedAt: integer("responded_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("org_invitations_one_pending_idx").on(t.orgId, t.inviteeId).where(sql`${t.status} = 'pending'`),
    index("org_invitations_invitee_idx").on(t.inviteeId, t.status, t.createdAt),
    index("org_invitations_org_idx").on(t.orgId, t.status, t.createdAt),
  ],
);

/** Domain-verification challenges (docs/decisions.md §63). */
export const orgDomainChallenges = sqliteTable(
  "org_domain_challenges",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    method: text("method", { enum: DOMAIN_METHODS }).notNull(),
    token: text("token").notNull(),
    expiresAt: integer("expires_at").notNull(),
    verifiedAt: integer("verified_at"),
    lastCheckedAt: integer("last_checked_at"),
    lastError: text("last_error"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("org_domain_challenges_org_idx").on(t.orgId, t.createdAt)],
);

/** Resource servers (RFC 8707 audiences); an identifier belongs to one organisation. */
export const orgResources = sqliteTable(
  "org_resources",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    identifier: text("identifier").notNull().unique(),
    label: text("label"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("org_resources_org_idx").on(t.orgId, t.createdAt)],
);

/** On-behalf-of policy (RFC 8693): who may have tokens minted for which resource and scopes. */
export const orgDelegationGrants = sqliteTable(
  "org_delegation_grants",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** A registered resource identifier of the organisation. */
    resource: text("resource").notNull(),
    allowedScopes: text("allowed_scopes", { mode: "json" }).$type<string[]>().notNull(),
    minRole: text("min_role", { enum: ORG_ROLES }).notNull().default("admin"),
    maxTtlSeconds: integer("max_ttl_seconds").notNull(),
    /** A grant for one member only; null for every member at or above min_role. */
    memberUserId: text("member_user_id"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("org_delegation_grants_org_idx").on(t.orgId, t.createdAt), index("org_delegation_grants_resource_idx").on(t.orgId, t.resource, t.isActive)],
);
