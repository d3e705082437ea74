// Request and response schemas of the colony routes (field names and bounds from the reference
// document's ColonyCreate, ColonyUpdate, ColonyOut, ColonyUpdateOut and ColonyMemberOut).
import { t, type TSchema } from "elysia";
import { Int, Nullable, OptionalEnum, IntInput } from "../../http/schemas";
import {
  APPEAL_STATUSES,
  BANNED_WORDS_ACTIONS,
  COLONY_ROLES,
  COMMUNITY_TYPES,
  CROSSPOST_POLICIES,
  CROWD_CONTROL_LEVELS,
  DEFAULT_SORTS,
  STRIKE_ACTIONS,
  STRIKE_SEVERITIES,
  WIKI_EDIT_POLICIES,
} from "./tables";

/**
 * An optional field that may be null. Enumerations carry `default: undefined` so an omitted key
 * stays omitted instead of taking the first value (see http/schemas.ts OptionalEnum).
 */
const Patchable = <T extends TSchema>(schema: T) => t.Optional(Nullable(schema));
const PatchableEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  Patchable(t.UnionEnum(values as unknown as T & string[], { default: undefined }));

export const ColonyIdParams = t.Object({ colony_id: t.String({ format: "uuid" }) });
export const ColonyNameParams = t.Object({ name: t.String({ minLength: 1, maxLength: 200, description: "The colony's slug; stripped and lower-cased" }) });
export const MemberParams = t.Object({
  colony_id: t.String({ format: "uuid" }),
  user_id: t.String({ minLength: 1, maxLength: 64, description: "A user id or a username" }),
});

export const CheckNameOut = t.Object({ name: t.String(), valid: t.Boolean(), available: t.Boolean(), reason: Nullable(t.String()) });

const PostRulesOut = t.Object({
  title_min_len: Int(),
  title_max_len: Int(),
  body_required: t.Boolean(),
  body_min_len: Int(),
  allowed_post_types: t.Array(t.String()),
  title_regex: Nullable(t.String()),
});

const PostingRulesOut = t.Object({
  min_karma_to_post: Nullable(Int()),
  min_karma_to_comment: Nullable(Int()),
  min_karma_to_vote: Nullable(Int()),
  min_comment_length: Nullable(Int()),
  post: PostRulesOut,
});

const colonyFields = {
  id: t.String({ format: "uuid" }),
  name: t.String(),
  display_name: t.String(),
  description: Nullable(t.String()),
  member_count: Int({ description: "Every member, pending ones included" }),
  post_count: Int({ description: "Publicly visible posts" }),
  is_default: t.Boolean(),
  is_sandbox: t.Boolean(),
  community_type: t.UnionEnum([...COMMUNITY_TYPES]),
  crowd_control_level: t.UnionEnum([...CROWD_CONTROL_LEVELS]),
  rss_url: Nullable(t.String()),
  report_reasons: Nullable(t.Array(t.String())),
  icon_url: Nullable(t.String()),
  icon_url_96: Nullable(t.String()),
  icon_url_256: Nullable(t.String()),
  header_url: Nullable(t.String()),
  posting_rules: Nullable(PostingRulesOut),
  created_at: t.String({ format: "date-time" }),
};

export const ColonyOut = t.Object(colonyFields);

export const ColonyUpdateOut = t.Object({
  ...colonyFields,
  rules: Nullable(t.String()),
  welcome_message: Nullable(t.String()),
  default_sort: t.UnionEnum([...DEFAULT_SORTS]),
  accent_color: Nullable(t.String()),
  show_rules_banner: t.Boolean(),
  requires_post_approval: t.Boolean(),
  crosspost_policy: t.UnionEnum([...CROSSPOST_POLICIES]),
  require_flair: t.Boolean(),
  banned_words: Nullable(t.Array(t.String())),
  banned_words_action: t.UnionEnum([...BANNED_WORDS_ACTIONS]),
  undo_window_seconds: Int(),
  min_karma_to_post: Nullable(Int()),
  min_karma_to_comment: Nullable(Int()),
  min_karma_to_vote: Nullable(Int()),
  min_comment_length: Nullable(Int()),
  strike_threshold: Int(),
  strike_action: t.UnionEnum([...STRIKE_ACTIONS]),
  wiki_edit_policy: t.UnionEnum([...WIKI_EDIT_POLICIES]),
  min_karma_to_edit_wiki: Int({ description: "Karma floor of the karma_or_editors wiki policy (default 10)" }),
  lockdown: t.Boolean({ description: "While on, the colony's wiki takes writes from its moderators only" }),
  notice: Nullable(t.String()),
});

export const ColonyCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, description: "url-safe slug: 3-50 lower-case letters, digits, hyphens, underscores" }),
  display_name: t.String({ minLength: 1, maxLength: 200 }),
  description: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
  community_type: PatchableEnum(COMMUNITY_TYPES),
});

const KarmaFloor = IntInput({ minimum: 0, maximum: 100000 });

export const ColonyUpdate = t.Object({
  display_name: Patchable(t.String({ maxLength: 200 })),
  description: Patchable(t.String({ maxLength: 10000 })),
  rules: Patchable(t.String({ maxLength: 20000 })),
  welcome_message: Patchable(t.String({ maxLength: 2000 })),
  default_sort: PatchableEnum(DEFAULT_SORTS),
  community_type: PatchableEnum(COMMUNITY_TYPES),
  crowd_control_level: PatchableEnum(CROWD_CONTROL_LEVELS),
  accent_color: Patchable(t.String({ pattern: "^#[0-9a-fA-F]{6}$" })),
  show_rules_banner: Patchable(t.Boolean()),
  requires_post_approval: Patchable(t.Boolean()),
  crosspost_policy: PatchableEnum(CROSSPOST_POLICIES),
  require_flair: Patchable(t.Boolean()),
  banned_words: Patchable(t.Array(t.String({ maxLength: 100 }), { maxItems: 200 })),
  report_reasons: Patchable(t.Array(t.String({ maxLength: 200 }), { maxItems: 20 })),
  banned_words_action: PatchableEnum(BANNED_WORDS_ACTIONS),
  undo_window_seconds: Patchable(IntInput({ minimum: 0, maximum: 300 })),
  min_karma_to_post: Patchable(KarmaFloor),
  min_karma_to_comment: Patchable(KarmaFloor),
  min_karma_to_vote: Patchable(KarmaFloor),
  min_comment_length: Patchable(IntInput({ minimum: 0, maximum: 10000 })),
  strike_threshold: Patchable(IntInput({ minimum: 1, maximum: 10 })),
  strike_action: PatchableEnum(STRIKE_ACTIONS),
  wiki_edit_policy: PatchableEnum(WIKI_EDIT_POLICIES),
  min_karma_to_edit_wiki: Patchable(KarmaFloor),
  lockdown: Patchable(t.Boolean()),
});

export const ColonyMemberOut = t.Object({
  user_id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: t.String(),
  user_type: t.String(),
  role: t.UnionEnum([...COLONY_ROLES]),
  joined_at: t.String({ format: "date-time" }),
  is_creator: t.Boolean(),
  approved: t.Boolean(),
});

// ---------------------------------------------------------------------------------------------
// Colony roles, bans, strikes, appeals (spec Part 2 §2.3, §2.5, §4.1, §4.2; reference shapes)

export const AppealParams = t.Object({ colony_id: t.String({ format: "uuid" }), appeal_id: t.String({ format: "uuid" }) });

export const ColonyBanCreate = t.Object({
  duration_days: t.Optional(Nullable(IntInput({ minimum: 1, maximum: 30, description: "1, 7 or 30; null or omitted: permanent (ban_duration_days is its deprecated name)" }))),
  reason: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
});

const banFields = {
  reason: Nullable(t.String()),
  created_at: t.String({ format: "date-time", description: "When the ban was made" }),
  banned_at: t.Optional(Nullable(t.String({ format: "date-time", deprecated: true, description: "Deprecated: use created_at, which carries the same value." }))),
  expires_at: Nullable(t.String({ format: "date-time", description: "When a timed ban lifts; null for a permanent ban" })),
};

export const ColonyBanOut = t.Object({
  user_id: t.String({ format: "uuid" }),
  username: t.String(),
  display_name: Nullable(t.String()),
  ...banFields,
  is_active: t.Boolean({ description: "False once a timed ban has expired (the sweep then lifts it)" }),
});

const MyBanInfoOut = t.Object(banFields);

const MyAppealInfoOut = t.Object({
  appeal_id: t.String({ format: "uuid" }),
  status: t.UnionEnum([...APPEAL_STATUSES]),
  created_at: t.String({ format: "date-time" }),
  resolution_note: Nullable(t.String()),
  resolved_at: Nullable(t.String({ format: "date-time" })),
});

export const MyBanStatusOut = t.Object({
  banned: t.Boolean({ description: "Whether a ban is in force now" }),
  ban: Nullable(MyBanInfoOut),
  appeal: Nullable(MyAppealInfoOut, { description: "Your most recent appeal here, whatever its outcome" }),
});

export const BanAppealRequest = t.Object({ body: t.String({ minLength: 1, maxLength: 2000 }) });

export const BanAppealOut = t.Object({ appeal_id: t.String({ format: "uuid" }), status: t.UnionEnum([...APPEAL_STATUSES]), created_at: t.String({ format: "date-time" }) });

const PendingAppealOut = t.Object({
  appeal_id: t.String({ format: "uuid" }),
  target_user_id: t.String({ format: "uuid" }),
  target_username: t.String(),
  body: t.String(),
  created_at: t.String({ format: "date-time" }),
  ban: Nullable(MyBanInfoOut, { description: "The appellant's ban in force; null when it lapsed or was lifted since" }),
});

export const PendingAppealsOut = t.Object({ appeals: t.Array(PendingAppealOut) });

export const ResolveAppealRequest = t.Object({ accept: t.Boolean(), note: t.Optional(Nullable(t.String({ maxLength: 1000 }))) });

export const AppealResolvedOut = t.Object({ appeal_id: t.String({ format: "uuid" }), status: t.UnionEnum(["accepted", "rejected"]), unbanned: t.Boolean() });

export const StrikeRequest = t.Object({
  reason: t.String({ minLength: 1, maxLength: 1000 }),
  severity: OptionalEnum(STRIKE_SEVERITIES, { description: "minor (the default) or major" }),
});

const StrikeOut = t.Object({
  strike_id: t.String({ format: "uuid" }),
  reason: t.String(),
  severity: t.UnionEnum([...STRIKE_SEVERITIES]),
  issued_by: Nullable(t.String({ format: "uuid" })),
  created_at: t.String({ format: "date-time" }),
  expires_at: Nullable(t.String({ format: "date-time", description: "When the strike stops counting: 30 days for minor, 90 for major" })),
});

export const StrikeIssuedOut = t.Object({
  strike: StrikeOut,
  active_count: Int(),
  threshold: Int(),
  fired_action: Nullable(t.UnionEnum([...STRIKE_ACTIONS]), { description: "The strike_action this strike set off, if any" }),
});

export const MemberStrikesOut = t.Object({ strikes: t.Array(StrikeOut), active_count: Int(), threshold: Int(), strike_action: t.UnionEnum([...STRIKE_ACTIONS]) });
