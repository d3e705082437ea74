// Organisation rows as the wire shows them (schemas.ts; field names from the reference service).
import { iso } from "../../core/clock";
import type { UserRow } from "../users/service";
import type { InvitationRow } from "./invitations";
import type { MemberRow, OrgRow } from "./service";

const orgFields = (org: OrgRow) => ({
  id: org.id,
  slug: org.slug,
  name: org.name,
  description: org.description,
  verified_domain: org.verifiedDomain,
  disclosure_mode: org.disclosureMode,
});

export const membershipOut = (org: OrgRow, member: MemberRow) => ({ ...orgFields(org), role: member.role, member_visible: member.memberVisible, joined_at: iso(member.joinedAt) });

export const createdOut = (org: OrgRow, member: MemberRow) => ({
  ...orgFields(org),
  role: member.role,
  status: "accepted" as const,
  member_visible: member.memberVisible,
  created_at: iso(org.createdAt),
});

export const publicOut = (org: OrgRow) => ({ ...orgFields(org), member_count: org.memberCount, created_at: iso(org.createdAt) });

export const invitationOut = (invitation: InvitationRow, org: OrgRow) => ({
  invitation_id: invitation.id,
  slug: org.slug,
  name: org.name,
  verified_domain: org.verifiedDomain,
  disclosure_mode: org.disclosureMode,
  role: invitation.role,
  expires_at: iso(invitation.expiresAt),
  created_at: iso(invitation.createdAt),
});

const personFields = (user: UserRow) => ({ user_id: user.id, username: user.username, display_name: user.displayName, user_type: user.userType });

export const memberOut = (member: MemberRow, user: UserRow) => ({ ...personFields(user), role: member.role, member_visible: member.memberVisible, joined_at: iso(member.joinedAt) });

export const pendingInviteOut = (invitation: InvitationRow, user: UserRow) => ({
  ...personFields(user),
  role: invitation.role,
  member_visible: false,
  joined_at: null,
  invitation_id: invitation.id,
  invited_by: invitation.invitedBy,
  expires_at: iso(invitation.expiresAt),
  created_at: iso(invitation.createdAt),
});

export const inviteOut = (invitation: InvitationRow, org: OrgRow, user: UserRow) => ({
  invitation_id: invitation.id,
  slug: org.slug,
  user_id: user.id,
  username: user.username,
  role: invitation.role,
  status: "pending" as const,
  expires_at: iso(invitation.expiresAt),
  created_at: iso(invitation.createdAt),
});
