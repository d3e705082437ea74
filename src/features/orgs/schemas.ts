// Wire shapes of the organisation routes (spec Part 2 §4.3). Field names follow the reference
// service's Org* schemas; where the reference leaves a body as a bare object the fields are ours
// (docs/decisions.md §66).
import { t } from "elysia";
import { Int, Nullable, IntInput } from "../../http/schemas";
import { DISCLOSURE_MODES, DOMAIN_METHODS, ORG_ROLES } from "./tables";

const Instant = t.String({ format: "date-time" });
const Role = t.UnionEnum([...ORG_ROLES]);
const Mode = t.UnionEnum([...DISCLOSURE_MODES]);

export const SlugParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }) });
export const SlugUserParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }), user_id: t.String({ minLength: 1, maxLength: 64, description: "A username or a user ID." }) });
export const InvitationParams = t.Object({ invitation_id: t.String({ minLength: 1, maxLength: 64 }) });
export const ResourceParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }), resource_id: t.String({ minLength: 1, maxLength: 64 }) });
export const GrantParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }), grant_id: t.String({ minLength: 1, maxLength: 64 }) });

// ---------------------------------------------------------------------------------------------
// Bodies

export const OrgCreateIn = t.Object({
  slug: t.String({ minLength: 3, maxLength: 50, description: "Global handle: 3-50 lower-case letters, digits and hyphens (compared without case), shared with usernames and colony names." }),
  name: t.String({ minLength: 1, maxLength: 100, description: "Display name." }),
  description: t.Optional(Nullable(t.String({ maxLength: 500 }), { description: "Optional short description." })),
});
export const OrgInviteIn = t.Object({
  username: t.String({ minLength: 1, maxLength: 64, description: "The user to invite: a username or a user ID." }),
  role: t.Optional(t.UnionEnum([...ORG_ROLES], { default: "member", description: "Initial role: member (default), admin or owner (admin and owner: owners only)." })),
});
export const OrgRoleIn = t.Object({ role: t.UnionEnum([...ORG_ROLES], { description: "New role: member, admin or owner." }) });
export const OrgTargetIn = t.Object({ user_id: t.String({ minLength: 1, maxLength: 64, description: "The target member: a username or a user ID." }) });
export const OrgRenameIn = t.Object({ new_slug: t.String({ minLength: 3, maxLength: 50, description: "New global handle." }) });
export const OrgDisclosureIn = t.Object({ mode: t.UnionEnum([...DISCLOSURE_MODES], { description: "Disclosure mode: public, opaque or none." }) });
export const OrgVisibilityIn = t.Object({ visible: t.Boolean({ description: "True to have your membership named in identity tokens (with the organisation's disclosure mode); false to hide it. Off by default." }) });
export const OrgDeleteIn = t.Object({ reason: t.Optional(t.String({ maxLength: 500, description: "Optional reason." })) });
export const OrgDomainIn = t.Object({
  domain: t.String({ minLength: 1, maxLength: 255, description: "Domain to verify (like example.com)." }),
  method: t.UnionEnum([...DOMAIN_METHODS], { description: "dns_txt (a TXT record) or http_wellknown (a file under /.well-known over HTTPS)." }),
});
export const OrgResourceIn = t.Object({
  identifier: t.String({ minLength: 1, maxLength: 255, description: "Absolute URI audience (like https://api.example.com), no fragment." }),
  label: t.Optional(Nullable(t.String({ maxLength: 120 }), { description: "Optional label." })),
});
export const OrgDelegationGrantIn = t.Object({
  resource: t.String({ minLength: 1, maxLength: 255, description: "One of the organisation's registered resource identifiers." }),
  scopes: t.Array(t.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 20, description: "Scopes on-behalf-of tokens may carry." }),
  min_role: t.Optional(t.UnionEnum([...ORG_ROLES], { default: "admin", description: "Minimum role that may use the grant (default admin)." })),
  max_ttl_seconds: t.Optional(Nullable(IntInput({ minimum: 1 }), { description: "Max lifetime of a minted token, clamped to 3600 (default 900)." })),
  member_user_id: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 64 }), { description: "Only this member (a username or user ID) may use the grant." })),
});

// ---------------------------------------------------------------------------------------------
// Answers

const OrgFields = {
  id: t.String({ format: "uuid" }),
  slug: t.String(),
  name: t.String(),
  description: Nullable(t.String()),
  verified_domain: Nullable(t.String()),
  disclosure_mode: Mode,
};

export const OrgMembershipOut = t.Object({ ...OrgFields, role: Role, member_visible: t.Boolean(), joined_at: Instant });
export const OrgCreatedOut = t.Object({ ...OrgFields, role: Role, status: t.Literal("accepted"), member_visible: t.Boolean(), created_at: Instant });
export const OrgPublicOut = t.Object({ ...OrgFields, member_count: Int(), created_at: Instant });
export const OrgInvitationOut = t.Object({
  invitation_id: t.String({ format: "uuid" }),
  slug: t.String(),
  name: t.String(),
  verified_domain: Nullable(t.String()),
  disclosure_mode: Mode,
  role: Role,
  expires_at: Instant,
  created_at: Instant,
});
const MemberFields = {
  user_id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: t.String(),
  user_type: t.UnionEnum(["agent", "human"]),
  role: Role,
  member_visible: t.Boolean(),
  joined_at: Nullable(Instant),
};
export const OrgMemberOut = t.Object(MemberFields);
export const OrgOperatedAgentIn = t.Object({ username: t.String({ minLength: 1, maxLength: 100, description: "The agent to add: a username (a leading @ is ignored) or a user id" }) });
export const OrgOperatedAgentOut = t.Object({ slug: t.String(), added: t.Boolean({ description: "false when the agent was a member already" }), member: OrgMemberOut });
export const OrgPendingInviteOut = t.Object({ ...MemberFields, invitation_id: t.String({ format: "uuid" }), invited_by: t.String({ format: "uuid" }), expires_at: Instant, created_at: Instant });
export const OrgInviteOut = t.Object({
  invitation_id: t.String({ format: "uuid" }),
  slug: t.String(),
  user_id: t.String({ format: "uuid" }),
  username: t.String(),
  role: Role,
  status: t.Literal("pending"),
  expires_at: Instant,
  created_at: Instant,
});
export const OrgActionOut = t.Object({ status: t.String() });
export const OrgLeaveOut = t.Object({ left: t.Boolean(), slug: t.String() });
export const OrgRoleOut = t.Object({ slug: t.String(), user_id: t.String({ format: "uuid" }), username: t.String(), role: Role, previous_role: Role });
export const OrgRemovedOut = t.Object({ removed: t.Boolean(), slug: t.String(), user_id: t.String({ format: "uuid" }), username: t.String(), role: Role });
export const OrgTransferOut = t.Object({ slug: t.String(), user_id: t.String({ format: "uuid" }), username: t.String(), role: t.Literal("owner"), your_role: t.Literal("admin") });
export const OrgRenameOut = t.Object({ id: t.String({ format: "uuid" }), slug: t.String(), previous_slug: t.String(), name: t.String() });
export const OrgDisclosureOut = t.Object({ slug: t.String(), disclosure_mode: Mode });
export const OrgVisibilityOut = t.Object({ slug: t.String(), member_visible: t.Boolean() });
export const OrgDeletionOut = t.Object({
  slug: t.String(),
  scheduled: t.Boolean(),
  delete_at: Nullable(Instant),
  requested_at: Nullable(Instant),
  requested_by: Nullable(t.String({ format: "uuid" })),
  reason: Nullable(t.String()),
  cooling_off_seconds: Int(),
});

const ChallengeFields = {
  id: t.String({ format: "uuid" }),
  domain: t.String(),
  method: t.UnionEnum([...DOMAIN_METHODS]),
  status: t.UnionEnum(["verified", "pending", "expired"]),
  token: t.String(),
  verified_at: Nullable(Instant),
  expires_at: Instant,
  created_at: Instant,
  last_checked_at: Nullable(Instant),
  last_error: Nullable(t.String()),
};
export const OrgDomainChallengeOut = t.Object(ChallengeFields);
export const OrgDomainStartOut = t.Object({
  ...ChallengeFields,
  record_type: Nullable(t.Literal("TXT")),
  record_name: Nullable(t.String()),
  record_value: Nullable(t.String()),
  url: Nullable(t.String()),
  file_content: Nullable(t.String()),
  instructions: t.String(),
});
export const OrgDomainVerifyOut = t.Object({ ...ChallengeFields, verified: t.Boolean(), reason: Nullable(t.String()), verified_domain: Nullable(t.String()) });

export const OrgResourceOut = t.Object({ id: t.String({ format: "uuid" }), identifier: t.String(), label: Nullable(t.String()), created_at: Instant });
export const OrgResourceDeletedOut = t.Object({ id: t.String(), deleted: t.Boolean() });
export const OrgDelegationGrantOut = t.Object({
  id: t.String({ format: "uuid" }),
  resource: t.String(),
  allowed_scopes: t.Array(t.String()),
  min_role: Role,
  max_ttl_seconds: Int(),
  member_user_id: Nullable(t.String({ format: "uuid" })),
  is_active: t.Boolean(),
  created_at: Instant,
  revoked_at: Nullable(Instant),
});
export const OrgGrantRevokedOut = t.Object({ id: t.String(), revoked: t.Boolean() });
