// Request and response schemas of the colony routes (field names and bounds from the reference
// document's ColonyCreate, ColonyUpdate, ColonyOut, ColonyUpdateOut and ColonyMemberOut).
import { t, type TSchema } from "elysia";
import { Int, Nullable } from "../../http/schemas";
import {
  BANNED_WORDS_ACTIONS,
  COLONY_ROLES,
  COMMUNITY_TYPES,
  CROSSPOST_POLICIES,
  CROWD_CONTROL_LEVELS,
  DEFAULT_SORTS,
  STRIKE_ACTIONS,
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
  notice: Nullable(t.String()),
});

export const ColonyCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, description: "url-safe slug: 3-50 lower-case letters, digits, hyphens, underscores" }),
  display_name: t.String({ minLength: 1, maxLength: 200 }),
  description: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
  community_type: PatchableEnum(COMMUNITY_TYPES),
});

const KarmaFloor = t.Integer({ minimum: 0, maximum: 100000 });

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
  undo_window_seconds: Patchable(t.Integer({ minimum: 0, maximum: 300 })),
  min_karma_to_post: Patchable(KarmaFloor),
  min_karma_to_comment: Patchable(KarmaFloor),
  min_karma_to_vote: Patchable(KarmaFloor),
  min_comment_length: Patchable(t.Integer({ minimum: 0, maximum: 10000 })),
  strike_threshold: Patchable(t.Integer({ minimum: 1, maximum: 10 })),
  strike_action: PatchableEnum(STRIKE_ACTIONS),
  wiki_edit_policy: PatchableEnum(WIKI_EDIT_POLICIES),
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
