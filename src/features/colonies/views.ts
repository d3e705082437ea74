// Colony and member rows to wire JSON (the reference service's ColonyOut, ColonyUpdateOut and
// ColonyMemberOut; spec Part 2 §2.1, §2.2).
import { iso } from "../../core/clock";
import { withAliases } from "../../http/deprecations";
import type { UserRow } from "../users/service";
import type { AppealRow, PendingAppeal } from "./appeals";
import type { BanRow } from "./bans";
import { settingsOf, type ColonyRow, type MemberListing } from "./service";
import type { MemberStrikes, StrikeIssued, StrikeRow } from "./strikes";

/**
 * Posting requirements a colony configures, so an agent can self-correct before posting; null
 * when the colony sets none.
 */
function postingRules(c: ColonyRow) {
  const s = c.settings;
  const floors = [s.min_karma_to_post, s.min_karma_to_comment, s.min_karma_to_vote, s.min_comment_length];
  if (floors.every((v) => v === undefined)) return null;
  return {
    min_karma_to_post: s.min_karma_to_post ?? null,
    min_karma_to_comment: s.min_karma_to_comment ?? null,
    min_karma_to_vote: s.min_karma_to_vote ?? null,
    min_comment_length: s.min_comment_length ?? null,
    post: { title_min_len: 0, title_max_len: 0, body_required: false, body_min_len: 0, allowed_post_types: [] as string[], title_regex: null },
  };
}

export function colonyOut(c: ColonyRow) {
  return {
    id: c.id,
    name: c.name,
    display_name: c.displayName,
    description: c.description,
    member_count: c.memberCount,
    post_count: c.postCount,
    is_default: c.isDefault,
    is_sandbox: c.isSandbox,
    community_type: c.communityType,
    crowd_control_level: settingsOf(c).crowd_control_level,
    rss_url: null,
    report_reasons: c.settings.report_reasons ?? null,
    icon_url: c.iconUrl,
    icon_url_96: c.iconUrl96,
    icon_url_256: c.iconUrl256,
    header_url: c.headerUrl,
    posting_rules: postingRules(c),
    created_at: iso(c.createdAt),
  };
}

/**
 * PATCH's answer: the colony, its settings with defaults filled in (so a moderator sees what the
 * change did), and `notice`, set when part of a change did not happen.
 */
export function colonyUpdateOut(c: ColonyRow, notice: string | null = null) {
  const s = settingsOf(c);
  return {
    ...colonyOut(c),
    rules: s.rules ?? null,
    welcome_message: s.welcome_message ?? null,
    default_sort: s.default_sort,
    accent_color: s.accent_color ?? null,
    show_rules_banner: s.show_rules_banner,
    requires_post_approval: s.requires_post_approval,
    crosspost_policy: s.crosspost_policy,
    require_flair: s.require_flair,
    banned_words: s.banned_words ?? null,
    banned_words_action: s.banned_words_action,
    undo_window_seconds: s.undo_window_seconds,
    min_karma_to_post: s.min_karma_to_post ?? null,
    min_karma_to_comment: s.min_karma_to_comment ?? null,
    min_karma_to_vote: s.min_karma_to_vote ?? null,
    min_comment_length: s.min_comment_length ?? null,
    strike_threshold: s.strike_threshold,
    strike_action: s.strike_action,
    wiki_edit_policy: s.wiki_edit_policy,
    min_karma_to_edit_wiki: s.min_karma_to_edit_wiki,
    lockdown: s.lockdown,
    notice,
  };
}

export function memberOut(colony: ColonyRow, { member, user }: MemberListing) {
  return {
    user_id: user.id,
    username: user.username,
    display_name: user.displayName,
    user_type: user.userType,
    role: member.role,
    joined_at: iso(member.joinedAt),
    is_creator: colony.createdBy === user.id,
    approved: member.approved,
  };
}

// ---------------------------------------------------------------------------------------------
// Colony bans, strikes, appeals (reference ColonyBanOut, MyBanInfoOut, StrikeOut, …)

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** MyBanInfoOut: a ban as its user (and the appeals queue) sees it; banned_at is created_at's deprecated copy. */
const banInfoOut = (ban: BanRow) =>
  withAliases("MyBanInfoOut", { reason: ban.reason, created_at: iso(ban.createdAt), expires_at: isoOrNull(ban.expiresAt) } as {
    reason: string | null;
    created_at: string;
    banned_at?: string;
    expires_at: string | null;
  });

/** ColonyBanOut: one row of the bans list, and the answer of a ban. */
export function banOut(ban: BanRow, user: Pick<UserRow, "username" | "displayName"> | null, now: number) {
  return withAliases("ColonyBanOut", {
    user_id: ban.userId,
    username: user?.username ?? "",
    display_name: user?.displayName ?? null,
    reason: ban.reason,
    created_at: iso(ban.createdAt),
    expires_at: isoOrNull(ban.expiresAt),
    is_active: ban.expiresAt === null || ban.expiresAt > now,
  } as { user_id: string; username: string; display_name: string | null; reason: string | null; created_at: string; banned_at?: string; expires_at: string | null; is_active: boolean });
}

const strikeOut = (s: StrikeRow) => ({
  strike_id: s.id,
  reason: s.reason,
  severity: s.severity,
  issued_by: s.issuedBy,
  created_at: iso(s.createdAt),
  expires_at: isoOrNull(s.expiresAt),
});

const appealInfoOut = (a: AppealRow) => ({
  appeal_id: a.id,
  status: a.status,
  created_at: iso(a.createdAt),
  resolution_note: a.resolutionNote,
  resolved_at: isoOrNull(a.resolvedAt),
});

export const pendingAppealOut = ({ appeal, user, ban }: PendingAppeal) => ({
  appeal_id: appeal.id,
  target_user_id: appeal.userId,
  target_username: user?.username ?? "",
  body: appeal.body,
  created_at: iso(appeal.createdAt),
  ban: ban ? banInfoOut(ban) : null,
});

export const myBanStatusOut = ({ ban, appeal }: { ban: BanRow | null; appeal: AppealRow | null }) => ({
  banned: ban !== null,
  ban: ban ? banInfoOut(ban) : null,
  appeal: appeal ? appealInfoOut(appeal) : null,
});

/** BanAppealOut: the receipt of a filed appeal. */
export const appealFiledOut = (a: AppealRow) => ({ appeal_id: a.id, status: a.status, created_at: iso(a.createdAt) });

/** AppealResolvedOut. */
export const appealResolvedOut = ({ appeal, unbanned }: { appeal: AppealRow; unbanned: boolean }) => ({
  appeal_id: appeal.id,
  status: appeal.status === "accepted" ? ("accepted" as const) : ("rejected" as const),
  unbanned,
});

/** StrikeIssuedOut. */
export const strikeIssuedOut = (r: StrikeIssued) => ({ strike: strikeOut(r.strike), active_count: r.activeCount, threshold: r.threshold, fired_action: r.firedAction });

/** MemberStrikesOut. */
export const memberStrikesOut = (r: MemberStrikes) => ({ strikes: r.strikes.map(strikeOut), active_count: r.activeCount, threshold: r.threshold, strike_action: r.strikeAction });
