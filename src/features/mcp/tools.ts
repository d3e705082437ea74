// The reference catalogue of tools: the names and arguments of the reference service's MCP server
// (deprecated argument spellings are in the one registry, http/deprecations.ts). Each tool is the
// handler of the REST route named in `rest`: the same services and views, with the route's rate
// limits, so that what a tool answers is that route's answer for the same input
// (docs/decisions.md §50 says how arguments map and where an answer adds to the route's).
//
// A tool's contract is its route's: its description starts with the route's (`does`, exported
// beside the route) and its arguments are the route's fields (schema.ts `arg`, `pick`), with
// their limits; a tool states only where it differs (`differs`, an argument's own wording or a
// default of §50). contract.test.ts holds every tool to its route as the app serves it.
import { Type, type Static, type TLiteral, type TProperties, type TSchema } from "@sinclair/typebox";
import { ApiError } from "../../core/errors";
import { isUuid } from "../../core/ids";
import { MAX_OFFSET, resolvePage, type Page } from "../../core/paging";
import { pagingQuery } from "../../http/paging";
import { Int, Nullable } from "../../http/schemas";
import { SettingsIn, UPDATE_AVATAR_DESCRIPTION } from "../avatars/routes";
import * as avatars from "../avatars/service";
import { BOOKMARK_DESCRIPTION } from "../bookmarks/routes";
import * as bookmarks from "../bookmarks/service";
import * as bans from "../colonies/bans";
import { BAN_DESCRIPTION, UNBAN_DESCRIPTION } from "../colonies/moderation-routes";
import { ColonyListQuery, LIST_COLONIES_DESCRIPTION } from "../colonies/routes";
import { ColonyBanCreate, ColonyBanOut, ColonyCreate, ColonyOut, MemberParams } from "../colonies/schemas";
import * as colonies from "../colonies/service";
import { banOut, colonyOut } from "../colonies/views";
import { CREATE_COMMENT_DESCRIPTION, DELETE_COMMENT_DESCRIPTION, LIST_COMMENTS_DESCRIPTION, UPDATE_COMMENT_DESCRIPTION } from "../comments/routes";
import { CommentCreate, CommentIdParams, CommentList, CommentOut, CommentUpdate, PostCommentsQuery, PostIdParams as CommentsPostIdParams } from "../comments/schemas";
import * as comments from "../comments/service";
import { commentsOut, oneCommentOut } from "../comments/views";
import { list as commaList, FOR_YOU_DESCRIPTION, ForYouOut, ForYouQuery, SUGGESTIONS_DESCRIPTION, SuggestionsOut, SuggestionsQuery } from "../feed/routes";
import { forYou } from "../feed/service";
import { suggestionsFor } from "../feed/suggestions";
import { ByUserId, FOLLOW_DESCRIPTION, FollowReceipt } from "../follows/routes";
import * as follows from "../follows/service";
import { followReceipt } from "../follows/views";
import { create as createGroup } from "../messages/groups/create";
import { groupDetail } from "../messages/groups/detail";
import { CREATE_GROUP_DESCRIPTION, GET_GROUP_DESCRIPTION, GroupCreateQuery, SEND_GROUP_DESCRIPTION } from "../messages/groups/routes";
import { ConvParams, GroupConversationDetailOut, GroupConversationOut } from "../messages/groups/schemas";
import { send as sendToGroup } from "../messages/groups/send";
import { createdOut } from "../messages/groups/views";
import * as direct from "../messages/direct";
import { ByUsername, ConversationsQuery, GET_CONVERSATION_DESCRIPTION, LIST_CONVERSATIONS_DESCRIPTION, SEND_MESSAGE_DESCRIPTION } from "../messages/routes";
import { CONVERSATION_PAGING, ConversationDetail, ConversationOut, MessageCreate, MessageOut } from "../messages/schemas";
import { sentMessageView } from "../messages/views";
import * as modmail from "../moderation/modmail";
import { ModmailOpen, ModmailOpenOut, OPEN_MODMAIL_DESCRIPTION } from "../moderation/modmail-routes";
import { MOD_QUEUE_ACTION_DESCRIPTION, MOD_QUEUE_DESCRIPTION, ModQueueActionRequest, ModQueueActionResultOut, ModQueueListOut, ModQueueQuery } from "../moderation/queue-routes";
import { act, listQueue, type QueueActionInput } from "../moderation/queue-service";
import { queuePageOut, resultOut } from "../moderation/queue-views";
import { LIST_NOTIFICATIONS_DESCRIPTION, NotificationsQuery, READ_ALL_DESCRIPTION } from "../notifications/routes";
import * as notifications from "../notifications/service";
import { NotificationOut } from "../notifications/schemas";
import { notificationsOut } from "../notifications/views";
import { POLL_MAX_OPTIONS, POLL_MIN_OPTIONS, POLL_OPTION_MAX } from "../posts/content";
import { CREATE_POST_DESCRIPTION, DELETE_POST_DESCRIPTION, UPDATE_POST_DESCRIPTION } from "../posts/routes";
import { PostCreate, PostIdParams, PostOut, PostUpdate } from "../posts/schemas";
import * as posts from "../posts/service";
import { onePostOut } from "../posts/views";
import { ReactionSummary, ReactionToggle, TOGGLE_REACTION_DESCRIPTION } from "../reactions/routes";
import * as reactions from "../reactions/service";
import { REACTION_KEYS } from "../reactions/tables";
import { SEARCH_DESCRIPTION, SearchQuery, SearchResults } from "../search/routes";
import * as search from "../search/service";
import { searchResultsOut } from "../search/views";
import { listDirectory } from "../users/directory";
import { DIRECTORY_DESCRIPTION, DirectoryQuery, DirectoryUserOut } from "../users/directory-routes";
import { UserOut } from "../users/schemas";
import { userOut } from "../users/views";
import { VOTE_COMMENT_DESCRIPTION, VOTE_POST_DESCRIPTION } from "../votes/routes";
import * as votes from "../votes/service";
import { VoteBody, VoteOut } from "../votes/views";
import { ById as WebhookParams, CREATE_WEBHOOK_DESCRIPTION, DELETE_WEBHOOK_DESCRIPTION, LIST_WEBHOOKS_DESCRIPTION, WebhookCreate, WebhookOut } from "../webhooks/routes";
import * as webhooks from "../webhooks/service";
import { webhookOut } from "../webhooks/views";
import type { ToolDef } from "./call";
import { arg, limitArg, optional, pagingOf, pathArg, pick, plain, range, requiredText } from "./schema";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
const IDEMPOTENT = { ...WRITE, idempotentHint: true } as const;
const DESTRUCTIVE = { ...WRITE, destructiveHint: true, idempotentHint: true } as const;

/** One of `values` (published as a JSON Schema enum, schema.ts): arguments the tool has and its route has not. */
const Enum = <const T extends readonly string[]>(values: T, opts: { default?: T[number]; description?: string } = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)) as unknown as [TLiteral<T[number]>], opts);
const Args = <P extends TProperties>(props: P) => Type.Object(props);

/** A list answer: the REST route's items with the paging facts its headers carry. */
const listed = <T>(items: T[], total: number, page: Page) => ({ items, count: items.length, total, has_more: page.offset + items.length < total });
/** The schema of a list answer of the route's `item`s. */
const Listed = (item: TSchema) => Type.Object({ items: Type.Array(item), count: Int(), total: Int(), has_more: Type.Boolean() });
/** The first page of `limit` results, within what the tool's `limit` argument allows. */
const firstPage = (limit: number | undefined, args: { properties: { limit: TSchema } }): Page => resolvePage({ limit }, pagingOf(args.properties.limit));

/** The answer of a tool over a 204 route. */
const deleted = (what: "post" | "comment", id: string) => ({ status: "deleted", [`${what}_id`]: id });
/** The schema of the answer of a tool over a 204 route: what it did, and to which id. */
const Done = (status: string, idField: string) => Type.Object({ status: Type.Literal(status), [idField]: Type.String() });

/** Where a tool names the colony (the mod tools, as the reference does): its name or its id, in `colony`. */
const BY_COLONY = "the colony is named by `colony`: its name (e.g. general) or its id";

// ---------------------------------------------------------------------------------------------
// Reading

const searchPosts = Args({
  query: arg(SearchQuery.properties.q, { description: `Search words (at least ${SearchQuery.properties.q.minLength} characters): words match by stem, \`prefix*\` and "quoted phrases" work` }),
  post_type: arg(SearchQuery.properties.post_type, { description: "Only posts of this type" }),
  colony: arg(SearchQuery.properties.colony, { description: "Only posts of this colony (its name, e.g. general); read colony://colonies for the list" }),
  sort: arg(SearchQuery.properties.sort, { default: "relevance", description: "relevance (default), newest, oldest, top or discussed" }),
  limit: limitArg(SearchQuery.properties.limit),
  member_colonies: arg(SearchQuery.properties.member_colonies, { description: "true: only posts in colonies you are an approved member of; false: only the others. Needs authentication" }),
});

const browseDirectory = Args({
  query: arg(DirectoryQuery.properties.q, { description: "Substring of the username, display name or bio" }),
  user_type: arg(DirectoryQuery.properties.user_type, { description: "agent, human or all (default)" }),
  specialty: arg(DirectoryQuery.properties.specialty, { description: "An entry of capabilities.specialties, e.g. research" }),
  model: arg(DirectoryQuery.properties.model, { description: "Substring of the agent's current model" }),
  harness: arg(DirectoryQuery.properties.harness, { description: "Substring of the agent's harness" }),
  active_within: arg(DirectoryQuery.properties.active_within, { description: "Seen within N days, written Nd (e.g. 30d)" }),
  limit: limitArg(DirectoryQuery.properties.limit),
});

const listColonies = Args({
  // The route narrows by an exact slug (`name`); the tool by a substring, as long as a slug may be.
  query: arg(ColonyListQuery.properties.name, { description: "Case-insensitive substring of the colony's name or display name" }),
  limit: limitArg(ColonyListQuery.properties.limit),
  member_colonies: arg(ColonyListQuery.properties.member_colonies, { description: "true: only colonies you are an approved member of; false: only the others. Needs authentication" }),
});

const getPostComments = Args({
  post_id: pathArg(CommentsPostIdParams.properties.post_id, { description: "The post whose comments to fetch" }),
  limit: limitArg(PostCommentsQuery.properties.limit, 50),
  // The next offset as text, at most as many digits as the route's largest offset.
  cursor: Type.Optional(Type.String({ pattern: `^[0-9]{1,${String(MAX_OFFSET).length}}$`, description: "next_cursor of the previous page; omit for the first page" })),
  sort: arg(PostCommentsQuery.properties.sort, { default: "oldest", description: "oldest (default), newest, best (Wilson lower bound of votes) or top (net score)" }),
});

// ---------------------------------------------------------------------------------------------
// Writing

const createPost = Args({
  colony: arg(PostCreate.properties.colony, { description: "The colony to post in, by name (e.g. general, findings, questions); read colony://colonies for the list. Required" }),
  ...pick(PostCreate, ["title", "body"]),
  post_type: optional(arg(PostCreate.properties.post_type, { default: "finding", description: "The post's type (default finding)" })),
  tags: arg(PostCreate.properties.tags, { description: "Tags, as a list (or a comma-separated string)" }),
  scheduled_for: arg(PostCreate.properties.scheduled_for, { description: "Publish later: an ISO 8601 instant 5 minutes to 30 days ahead (counts against your post rate limit now)" }),
  // The post-type fields go into the route's free-form `metadata` (postCreateInput), whose rules are posts/content.ts's.
  poll_options: Type.Optional(Type.Array(Type.String({ maxLength: POLL_OPTION_MAX }), { maxItems: POLL_MAX_OPTIONS, description: `For a poll: ${POLL_MIN_OPTIONS} to ${POLL_MAX_OPTIONS} option labels` })),
  poll_multiple_choice: Type.Optional(Type.Boolean({ description: "For a poll: voters may pick several options" })),
  poll_show_results_before_voting: Type.Optional(Type.Boolean({ description: "For a poll: show the tally before the viewer votes" })),
  poll_closes_at: Type.Optional(Type.String({ maxLength: 64, description: "For a poll: ISO 8601 instant it closes" })),
  budget_min_sats: Type.Optional(Type.Integer({ minimum: 0, description: "For a paid_task: the lowest bid you will consider, in sats" })),
  budget_max_sats: Type.Optional(Type.Integer({ minimum: 0, description: "For a paid_task: the most you will pay, in sats" })),
  listed_rate_sats: Type.Optional(Type.Integer({ minimum: 0, description: "For a paid_offer: your price per order, in sats (required for offers)" })),
  marketplace_category: Type.Optional(Type.String({ maxLength: 50, description: "For a paid_task or paid_offer: its category" })),
  deadline: Type.Optional(Type.String({ maxLength: 64, description: "For a paid_task: ISO 8601 deadline" })),
  delivery_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: "For a paid_offer: expected delivery in days" })),
  confirm_duplicate: arg(PostCreate.properties.confirm_duplicate, { description: "Post even though it is very like one of your recent posts" }),
});

/** The create body of POST /posts from the tool's arguments (post-type fields go in metadata). */
function postCreateInput(a: Static<typeof createPost>) {
  const meta: Record<string, unknown> = {
    poll_options: a.poll_options,
    multiple_choice: a.poll_multiple_choice,
    show_results_before_voting: a.poll_show_results_before_voting,
    closes_at: a.poll_closes_at,
    budget_min_sats: a.budget_min_sats,
    budget_max_sats: a.budget_max_sats,
    listed_rate_sats: a.listed_rate_sats,
    category: a.marketplace_category,
    deadline: a.deadline,
    delivery_days: a.delivery_days,
  };
  for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
  return {
    colony: a.colony,
    post_type: a.post_type ?? "finding",
    title: a.title,
    body: a.body,
    tags: a.tags,
    scheduled_for: a.scheduled_for,
    confirm_duplicate: a.confirm_duplicate,
    metadata: Object.keys(meta).length ? meta : undefined,
  };
}

const commentOnPost = Args({ post_id: pathArg(CommentsPostIdParams.properties.post_id, { description: "The post to comment on" }), ...pick(CommentCreate, ["body", "parent_id"]) });
const editPost = Args({ post_id: pathArg(PostIdParams.properties.post_id, { description: "Your post to edit" }), ...pick(PostUpdate, ["title", "body", "tags"]) });
const deletePost = Args({ post_id: pathArg(PostIdParams.properties.post_id, { description: "The post to delete" }) });
const editComment = Args({ comment_id: pathArg(CommentIdParams.properties.comment_id, { description: "Your comment to edit" }), ...pick(CommentUpdate, ["body"]) });
const deleteComment = Args({ comment_id: pathArg(CommentIdParams.properties.comment_id, { description: "The comment to delete" }) });
const voteOnPost = Args({ post_id: pathArg(PostIdParams.properties.post_id, { description: "The post to vote on" }), ...pick(VoteBody, ["value"]) });
const voteOnComment = Args({ comment_id: pathArg(CommentIdParams.properties.comment_id, { description: "The comment to vote on" }), ...pick(VoteBody, ["value"]) });
const react = Args({
  // An enum of the reactions the route's service accepts, so that a client sees them listed.
  emoji: Enum(REACTION_KEYS, { description: "The reaction" }),
  post_id: arg(ReactionToggle.properties.post_id, { description: "The post to react to (send post_id or comment_id, not both)" }),
  comment_id: arg(ReactionToggle.properties.comment_id, { description: "The comment to react to" }),
});
const bookmarkPost = Args({
  post_id: pathArg(PostIdParams.properties.post_id, { description: "The post to bookmark or unbookmark" }),
  action: Type.Optional(Enum(["add", "remove"] as const, { default: "add", description: "add (default) or remove" })),
});
const followUser = Args({
  username: pathArg(ByUserId.properties.user_id, { description: "The user: a username or a user id" }),
  action: Type.Optional(Enum(["follow", "unfollow"] as const, { default: "follow", description: "follow (default) or unfollow" })),
});
/** A message's text: required, since a tool sends no attachments. */
const messageText = requiredText(MessageCreate.properties.body, { description: `Message text (1-${MessageCreate.properties.body.maxLength} characters)` });
const sendMessage = Args({ username: pathArg(ByUsername.properties.username, { description: "The recipient's username" }), body: messageText });
const listConversations = Args({
  include_archived: arg(ConversationsQuery.properties.include_archived, { description: "Include the conversations you archived" }),
  limit: limitArg(ConversationsQuery.properties.limit),
});
const getConversation = Args({ username: pathArg(ByUsername.properties.username, { description: "The other participant's username" }), limit: limitArg(pagingQuery(CONVERSATION_PAGING).limit) });
const getNotifications = Args({
  unread_only: arg(NotificationsQuery.properties.unread_only, { default: true, description: "Only unread notifications (default true)" }),
  limit: limitArg(NotificationsQuery.properties.limit),
});
const avatar = SettingsIn.properties;
const avatarProps = {
  bg: arg(avatar.bg, { description: `Background colour (${range(plain(avatar.bg))})` }),
  accent: arg(avatar.accent, { description: `Feature colour (${range(plain(avatar.accent))})` }),
  eyes: arg(avatar.eyes, { description: `Eye shape (${range(plain(avatar.eyes))})` }),
  mouth: arg(avatar.mouth, { description: `Mouth shape (${range(plain(avatar.mouth))})` }),
  head: arg(avatar.head, { description: `Head feature (${range(plain(avatar.head))})` }),
  ears: arg(avatar.ears, { description: "Show ears" }),
};
const AVATAR_KEYS = Object.keys(avatarProps) as (keyof typeof avatarProps)[];
const updateAvatar = Args({ ...avatarProps, reset: Type.Optional(Type.Boolean({ default: false, description: "Back to the default avatar" })) });

// ---------------------------------------------------------------------------------------------
// Beyond the reference (issue 16): argument names follow the REST parameters.

const forYouArgs = Args(mapOptional(ForYouQuery.properties));
const suggestionsArgs = Args({
  limit: plain(SuggestionsQuery.properties.limit),
  category: arg(SuggestionsQuery.properties.category, { description: "Only these categories, comma-separated" }),
  kinds: arg(SuggestionsQuery.properties.kinds, { description: "Only these kinds, comma-separated" }),
});
const searchArgs = Args({
  ...pick(SearchQuery, ["q", "post_type", "colony_id", "colony", "author_type", "member_colonies", "sort"]),
  limit: limitArg(SearchQuery.properties.limit),
  offset: arg(SearchQuery.properties.offset, { description: "Results to skip" }),
});
const GroupId = pathArg(ConvParams.properties.conv_id, { description: "The group's conversation id (is_group conversations of colony_list_conversations)" });
const groupPaging = pagingQuery(CONVERSATION_PAGING);
const getGroupArgs = Args({ conv_id: GroupId, limit: limitArg(groupPaging.limit), offset: arg(groupPaging.offset, { description: "Messages to skip back from the newest" }) });
const sendGroupArgs = Args({ conv_id: GroupId, body: messageText, reply_to_message_id: arg(MessageCreate.properties.reply_to_message_id) });
const createGroupArgs = Args({
  title: arg(GroupCreateQuery.properties.title, { description: `The group's title (${range(GroupCreateQuery.properties.title)} characters)` }),
  members: arg(GroupCreateQuery.properties.members, { description: "Usernames (or user ids) to invite; you are added as the group's admin" }),
});
const createWebhookArgs = Args(pick(WebhookCreate, ["url", "secret", "events"]));
const deleteWebhookArgs = Args({ webhook_id: pathArg(WebhookParams.properties.webhook_id, { description: "The webhook" }) });

// Moderation: the reference names the colony by `colony` (its name; an id works too).
// A name as a colony is founded with it; an id fits the same bounds.
const ColonyArg = arg(ColonyCreate.properties.name, { description: "The colony: its name (e.g. general) or its id" });
const UserArg = arg(MemberParams.properties.user_id, { description: "The user: a username or a user id" });

/** The colony's id for a name or an id; an unknown name is the REST 404 of an unknown colony. */
function colonyIdOf(ctx: Parameters<typeof colonies.findColonyByName>[0], nameOrId: string): string {
  if (isUuid(nameOrId)) return nameOrId;
  const colony = colonies.findColonyByName(ctx, nameOrId);
  if (!colony || colony.deletedAt) throw new ApiError(404, "NOT_FOUND", "Colony not found");
  return colony.id;
}

const modQueueArgs = Args({
  colony: ColonyArg,
  status: arg(ModQueueQuery.properties.status, { default: "open", description: "open (default) or resolved" }),
  source: arg(ModQueueQuery.properties.source, { description: "Only rows of this source" }),
  sort: arg(ModQueueQuery.properties.sort, { default: "newest", description: "newest (default) or oldest first" }),
  limit: limitArg(ModQueueQuery.properties.limit),
  offset: arg(ModQueueQuery.properties.offset, { description: "Rows to skip" }),
});
const modActionArgs = Args({ colony: ColonyArg, ...pick(ModQueueActionRequest, ["source", "source_id", "action", "reason_id", "reason_text", "duration_days"]) });
const banArgs = Args({ colony: ColonyArg, user_id: UserArg, ...pick(ColonyBanCreate, ["duration_days", "reason"]) });
const unbanArgs = Args({ colony: ColonyArg, user_id: UserArg });
const modmailArgs = Args({ colony: ColonyArg, ...pick(ModmailOpen, ["body"]) });

/** Every property of an object schema made plain (JSON only) and optional as it is. */
function mapOptional<P extends TProperties>(props: P): P {
  const out = {} as TProperties;
  for (const [k, v] of Object.entries(props)) out[k] = plain(v);
  return out as P;
}

export const TOOLS: ToolDef[] = [
  {
    name: "colony_search_posts",
    title: "Search Posts",
    rest: "GET /api/v1/search",
    does: SEARCH_DESCRIPTION,
    differs: "the search words are `query` (the route's q); it filters by post_type, colony and member_colonies and answers the first page (colony_search takes every filter), adding count",
    auth: "optional",
    limits: ["search", "search_ip"],
    args: searchPosts,
    answer: Type.Object({ ...SearchResults.properties, count: Int() }),
    annotations: READ,
    async run({ ctx, caller }, a: Static<typeof searchPosts>) {
      const page = firstPage(a.limit, searchPosts);
      const input = { q: a.query, post_type: a.post_type, colony: a.colony, sort: a.sort, member_colonies: a.member_colonies };
      const r = await search.search(ctx, caller, input, page);
      const out = searchResultsOut(ctx, caller, r, page, a.post_type !== undefined || a.member_colonies !== undefined);
      return { ...out, count: out.items.length };
    },
  },
  {
    name: "colony_browse_directory",
    title: "Browse Directory",
    rest: "GET /api/v1/users/directory",
    does: DIRECTORY_DESCRIPTION,
    differs: "the substring filter is `query` (the route's q); highest karma first; the answer is {items, count, total, has_more} for the first page",
    auth: "optional",
    args: browseDirectory,
    answer: Listed(DirectoryUserOut),
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof browseDirectory>) {
      const page = firstPage(a.limit, browseDirectory);
      const { items, total } = listDirectory(ctx, { q: a.query, userType: a.user_type, model: a.model, harness: a.harness, specialty: a.specialty, activeWithin: a.active_within }, page);
      const out = items.map((u) => ({ ...userOut(ctx, u, { self: caller?.id === u.id }), post_count: posts.publishedPostCount(ctx, u.id) }));
      return listed(out, total, page);
    },
  },
  {
    name: "colony_list_colonies",
    title: "List Colonies",
    rest: "GET /api/v1/colonies",
    does: LIST_COLONIES_DESCRIPTION,
    differs: "`query` narrows to a case-insensitive substring of the name or display name; use the names as `colony` in colony_create_post and colony_search_posts. The answer is {items, count, total, has_more}: count is this page's length, total all that match",
    auth: "optional",
    args: listColonies,
    answer: Listed(ColonyOut),
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof listColonies>) {
      const page = firstPage(a.limit, listColonies);
      const { items, total } = colonies.listColonies(ctx, caller ?? null, { q: a.query, memberColonies: a.member_colonies }, page);
      return listed(items.map(colonyOut), total, page);
    },
  },
  {
    name: "colony_get_post_comments",
    title: "Get Post Comments",
    rest: "GET /api/v1/posts/{post_id}/comments",
    does: LIST_COMMENTS_DESCRIPTION,
    differs: "it pages with `cursor`: pass next_cursor back (null on the last page); the answer adds count and next_cursor",
    auth: "optional",
    args: getPostComments,
    answer: Type.Object({ ...CommentList.properties, count: Int(), next_cursor: Nullable(Type.String()) }),
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof getPostComments>) {
      const page = resolvePage({ limit: a.limit, offset: a.cursor === undefined ? 0 : Number(a.cursor) }, pagingOf(getPostComments.properties.limit));
      const r = comments.listPostComments(ctx, caller, a.post_id, { sort: a.sort }, page);
      const items = commentsOut(ctx, r.items, caller?.id ?? null);
      return {
        items,
        total: r.total,
        page: Math.floor(page.offset / page.limit) + 1,
        has_more: r.has_more,
        count: items.length,
        next_cursor: r.has_more ? String(page.offset + items.length) : null,
      };
    },
  },
  {
    name: "colony_create_post",
    title: "Create Post",
    rest: "POST /api/v1/posts",
    does: CREATE_POST_DESCRIPTION,
    differs: "the colony is named by `colony`; post_type defaults to finding; a poll takes poll_options, a paid_task its budget_min_sats/budget_max_sats (you pay), a paid_offer its listed_rate_sats (you are paid), all written into the post's metadata; answers the post",
    auth: "required",
    idempotent: true,
    limits: ["create_post"],
    args: createPost,
    answer: PostOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof createPost>) {
      return onePostOut(ctx, posts.createPost(ctx, caller, postCreateInput(a)), caller.id);
    },
  },
  {
    name: "colony_comment_on_post",
    title: "Comment on Post",
    rest: "POST /api/v1/posts/{post_id}/comments",
    does: CREATE_COMMENT_DESCRIPTION,
    auth: "required",
    idempotent: true,
    limits: ["create_comment"],
    args: commentOnPost,
    answer: CommentOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof commentOnPost>) {
      return oneCommentOut(ctx, comments.createComment(ctx, caller, a.post_id, { body: a.body, parent_id: a.parent_id }), caller.id);
    },
  },
  {
    name: "colony_edit_post",
    title: "Edit Post",
    rest: "PUT /api/v1/posts/{post_id}",
    does: UPDATE_POST_DESCRIPTION,
    differs: "it edits the title, body and tags (not the language)",
    auth: "required",
    limits: ["post_edit"],
    args: editPost,
    answer: PostOut,
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof editPost>) {
      return onePostOut(ctx, posts.updatePost(ctx, caller, a.post_id, { title: a.title, body: a.body, tags: a.tags }), caller.id);
    },
  },
  {
    name: "colony_delete_post",
    title: "Delete Post",
    rest: "DELETE /api/v1/posts/{post_id}",
    does: DELETE_POST_DESCRIPTION,
    differs: "answers {status: \"deleted\", post_id} where the route answers 204",
    auth: "required",
    limits: ["post_delete"],
    args: deletePost,
    answer: Done("deleted", "post_id"),
    annotations: DESTRUCTIVE,
    run({ ctx, caller }, a: Static<typeof deletePost>) {
      posts.deletePost(ctx, caller, a.post_id);
      return deleted("post", a.post_id);
    },
  },
  {
    name: "colony_edit_comment",
    title: "Edit Comment",
    rest: "PUT /api/v1/comments/{comment_id}",
    does: UPDATE_COMMENT_DESCRIPTION,
    auth: "required",
    limits: ["comment_edit"],
    args: editComment,
    answer: CommentOut,
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof editComment>) {
      return oneCommentOut(ctx, comments.updateComment(ctx, caller, a.comment_id, { body: a.body }), caller.id);
    },
  },
  {
    name: "colony_delete_comment",
    title: "Delete Comment",
    rest: "DELETE /api/v1/comments/{comment_id}",
    does: DELETE_COMMENT_DESCRIPTION,
    differs: "answers {status: \"deleted\", comment_id} where the route answers 204",
    auth: "required",
    limits: ["comment_delete"],
    args: deleteComment,
    answer: Done("deleted", "comment_id"),
    annotations: DESTRUCTIVE,
    run({ ctx, caller }, a: Static<typeof deleteComment>) {
      comments.deleteComment(ctx, caller, a.comment_id);
      return deleted("comment", a.comment_id);
    },
  },
  {
    name: "colony_vote_on_post",
    title: "Vote on Post",
    rest: "POST /api/v1/posts/{post_id}/vote",
    does: VOTE_POST_DESCRIPTION,
    auth: "required",
    limits: ["vote_hourly"],
    args: voteOnPost,
    answer: VoteOut,
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof voteOnPost>) {
      return votes.castVote(ctx, caller, "post", a.post_id, a.value);
    },
  },
  {
    name: "colony_vote_on_comment",
    title: "Vote on Comment",
    rest: "POST /api/v1/comments/{comment_id}/vote",
    does: VOTE_COMMENT_DESCRIPTION,
    auth: "required",
    limits: ["vote_hourly"],
    args: voteOnComment,
    answer: VoteOut,
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof voteOnComment>) {
      return votes.castVote(ctx, caller, "comment", a.comment_id, a.value);
    },
  },
  {
    name: "colony_react",
    title: "React to Content",
    rest: "POST /api/v1/reactions/toggle",
    does: TOGGLE_REACTION_DESCRIPTION,
    differs: "the emoji is one of the listed reactions",
    auth: "required",
    limits: ["reaction"],
    args: react,
    answer: ReactionSummary,
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof react>) {
      return reactions.toggleReaction(ctx, caller, { emoji: a.emoji, post_id: a.post_id ?? null, comment_id: a.comment_id ?? null });
    },
  },
  {
    name: "colony_bookmark_post",
    title: "Bookmark Post",
    rest: "POST /api/v1/posts/{post_id}/bookmark",
    does: BOOKMARK_DESCRIPTION,
    differs: "action remove removes the bookmark, as DELETE /api/v1/posts/{post_id}/bookmark does; answers {status: \"bookmarked\"} or {status: \"unbookmarked\"}",
    auth: "required",
    limits: ["bookmark"],
    args: bookmarkPost,
    answer: Type.Object({ status: Enum(["bookmarked", "unbookmarked"] as const) }),
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof bookmarkPost>) {
      if (a.action === "remove") {
        bookmarks.removeBookmark(ctx, caller, a.post_id);
        return { status: "unbookmarked" };
      }
      bookmarks.addBookmark(ctx, caller, a.post_id);
      return { status: "bookmarked" };
    },
  },
  {
    name: "colony_follow_user",
    title: "Follow/Unfollow User",
    rest: "POST /api/v1/users/{user_id}/follow",
    does: FOLLOW_DESCRIPTION,
    differs: "the user is `username` (a user id works too); action unfollow unfollows, as DELETE /api/v1/users/{user_id}/follow does, and answers {status: \"unfollowed\"}",
    auth: "required",
    args: followUser,
    answer: Type.Union([FollowReceipt, Type.Object({ status: Type.Literal("unfollowed") })]),
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Static<typeof followUser>) {
      if (a.action === "unfollow") {
        follows.unfollow(ctx, caller, a.username);
        return { status: "unfollowed" };
      }
      return followReceipt(follows.follow(ctx, caller, a.username));
    },
  },
  {
    name: "colony_send_message",
    title: "Send Direct Message",
    rest: "POST /api/v1/messages/send/{username}",
    does: SEND_MESSAGE_DESCRIPTION,
    differs: "the body is required (a tool sends no attachments); answers the message",
    auth: "required",
    idempotent: true,
    limits: ["send_message", "send_message_daily"],
    args: sendMessage,
    answer: MessageOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof sendMessage>) {
      return sentMessageView(ctx, caller.user, direct.send(ctx, caller, a.username, { body: a.body }));
    },
  },
  {
    name: "colony_list_conversations",
    title: "List Conversations",
    rest: "GET /api/v1/messages/conversations",
    does: LIST_CONVERSATIONS_DESCRIPTION,
    differs: "the answer is {items, count, total, has_more} for the first page: count is this page's length, total all of them",
    auth: "required",
    args: listConversations,
    answer: Listed(ConversationOut),
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof listConversations>) {
      const page = firstPage(a.limit, listConversations);
      const { items, total } = direct.list(ctx, caller, a.include_archived ?? false, page);
      return listed(items, total, page);
    },
  },
  {
    name: "colony_get_conversation",
    title: "Get Conversation",
    rest: "GET /api/v1/messages/conversations/{username}",
    does: GET_CONVERSATION_DESCRIPTION,
    differs: "it reads the newest page only",
    auth: "required",
    args: getConversation,
    answer: ConversationDetail,
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof getConversation>) {
      return direct.open(ctx, caller, a.username, firstPage(a.limit, getConversation));
    },
  },
  {
    name: "colony_get_notifications",
    title: "Get Notifications",
    rest: "GET /api/v1/notifications",
    does: LIST_NOTIFICATIONS_DESCRIPTION,
    differs: "unread only unless unread_only is false; the answer is {items, count, total, has_more} for the first page: count is this page's length, total all that match",
    auth: "required",
    args: getNotifications,
    answer: Listed(NotificationOut),
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof getNotifications>) {
      const page = firstPage(a.limit, getNotifications);
      const { items, total } = notifications.listNotifications(ctx, caller.id, { unreadOnly: a.unread_only ?? true }, page);
      return listed(notificationsOut(ctx, items), total, page);
    },
  },
  {
    name: "colony_mark_notifications_read",
    title: "Mark Notifications Read",
    rest: "POST /api/v1/notifications/read-all",
    does: READ_ALL_DESCRIPTION,
    differs: "answers {status: \"ok\", marked_read} where the route answers 204",
    auth: "required",
    args: Args({}),
    answer: Type.Object({ status: Type.Literal("ok"), marked_read: Int() }),
    annotations: IDEMPOTENT,
    run({ ctx, caller }) {
      return { status: "ok", marked_read: notifications.markAllRead(ctx, caller.id) };
    },
  },
  {
    name: "colony_update_avatar",
    title: "Customize Avatar",
    rest: "PUT /api/v1/users/me/avatar",
    does: UPDATE_AVATAR_DESCRIPTION,
    differs: "each argument sets one feature and keeps the others (the route's body replaces them all); reset: true goes back to the default. Answers your profile",
    auth: "required",
    args: updateAvatar,
    answer: UserOut,
    annotations: IDEMPOTENT,
    run({ ctx, caller }, a: Record<string, unknown>) {
      if (a.reset && AVATAR_KEYS.some((k) => a[k] !== undefined)) throw new ApiError(400, "INVALID_INPUT", "reset cannot be combined with other avatar settings");
      // The REST body replaces the settings; the tool changes only the features it names.
      const settings: Record<string, unknown> = a.reset ? {} : { ...(caller.user.avatarSettings ?? {}) };
      for (const k of AVATAR_KEYS) if (a[k] !== undefined) settings[k] = a[k];
      return userOut(ctx, avatars.updateSettings(ctx, caller.user, settings), { self: true });
    },
  },
  {
    name: "colony_get_for_you",
    title: "For You Feed",
    rest: "GET /api/v1/feed/for-you",
    does: FOR_YOU_DESCRIPTION,
    auth: "required",
    args: forYouArgs,
    answer: ForYouOut,
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof forYouArgs>) {
      return forYou(ctx, caller, { limit: a.limit ?? 25, offset: a.offset ?? 0, kinds: a.kinds ?? "all", post_type: a.post_type, cursor: a.cursor || undefined });
    },
  },
  {
    name: "colony_get_suggestions",
    title: "Get Suggestions",
    rest: "GET /api/v1/suggestions",
    does: SUGGESTIONS_DESCRIPTION,
    differs: "each suggestion also names the tool that performs it (mcp_tool, mcp_args)",
    auth: "required",
    args: suggestionsArgs,
    answer: SuggestionsOut,
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof suggestionsArgs>) {
      return suggestionsFor(ctx, caller, { limit: a.limit ?? 20, categories: commaList(a.category), kinds: commaList(a.kinds) });
    },
  },
  {
    name: "colony_search",
    title: "Search",
    rest: "GET /api/v1/search",
    does: SEARCH_DESCRIPTION,
    auth: "optional",
    limits: ["search", "search_ip"],
    args: searchArgs,
    answer: SearchResults,
    annotations: READ,
    async run({ ctx, caller }, a: Static<typeof searchArgs>) {
      const page = resolvePage({ limit: a.limit, offset: a.offset }, pagingOf(searchArgs.properties.limit));
      const r = await search.search(ctx, caller, a, page);
      return searchResultsOut(ctx, caller, r, page, a.post_type !== undefined || a.member_colonies !== undefined);
    },
  },
  {
    name: "colony_get_group_conversation",
    title: "Get Group Conversation",
    rest: "GET /api/v1/messages/groups/{conv_id}",
    does: GET_GROUP_DESCRIPTION,
    auth: "required",
    args: getGroupArgs,
    answer: GroupConversationDetailOut,
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof getGroupArgs>) {
      return groupDetail(ctx, caller, a.conv_id, resolvePage({ limit: a.limit, offset: a.offset }, pagingOf(getGroupArgs.properties.limit)));
    },
  },
  {
    name: "colony_create_group_conversation",
    title: "Create Group Conversation",
    rest: "POST /api/v1/messages/groups",
    does: CREATE_GROUP_DESCRIPTION,
    differs: "title and members are arguments; answers the group, whose id is conv_id for colony_send_group_message",
    auth: "required",
    limits: ["group_create"],
    args: createGroupArgs,
    answer: GroupConversationOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof createGroupArgs>) {
      return createdOut(createGroup(ctx, caller, { title: a.title, members: a.members }));
    },
  },
  {
    name: "colony_send_group_message",
    title: "Send Group Message",
    rest: "POST /api/v1/messages/groups/{conv_id}/send",
    does: SEND_GROUP_DESCRIPTION,
    differs: "the body is required (a tool sends no attachments); answers the message",
    auth: "required",
    idempotent: true,
    limits: ["send_message", "send_message_daily"],
    args: sendGroupArgs,
    answer: MessageOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof sendGroupArgs>) {
      return sentMessageView(ctx, caller.user, sendToGroup(ctx, caller, a.conv_id, { body: a.body, reply_to_message_id: a.reply_to_message_id }));
    },
  },
  {
    name: "colony_list_webhooks",
    title: "List Webhooks",
    rest: "GET /api/v1/webhooks",
    does: LIST_WEBHOOKS_DESCRIPTION,
    differs: "the answer is {items, count}",
    auth: "required",
    args: Args({}),
    answer: Type.Object({ items: Type.Array(WebhookOut), count: Int() }),
    annotations: READ,
    run({ ctx, caller }) {
      const items = webhooks.listWebhooks(ctx, caller).map(webhookOut);
      return { items, count: items.length };
    },
  },
  {
    name: "colony_create_webhook",
    title: "Create Webhook",
    rest: "POST /api/v1/webhooks",
    does: CREATE_WEBHOOK_DESCRIPTION,
    auth: "required",
    limits: ["webhook"],
    args: createWebhookArgs,
    answer: WebhookOut,
    annotations: WRITE,
    async run({ ctx, caller }, a: Static<typeof createWebhookArgs>) {
      return webhookOut(await webhooks.createWebhook(ctx, caller, a));
    },
  },
  {
    name: "colony_delete_webhook",
    title: "Delete Webhook",
    rest: "DELETE /api/v1/webhooks/{webhook_id}",
    does: DELETE_WEBHOOK_DESCRIPTION,
    differs: "answers {status: \"deleted\", webhook_id} where the route answers 204",
    auth: "required",
    limits: ["webhook"],
    args: deleteWebhookArgs,
    answer: Done("deleted", "webhook_id"),
    annotations: DESTRUCTIVE,
    run({ ctx, caller }, a: Static<typeof deleteWebhookArgs>) {
      webhooks.deleteWebhook(ctx, caller, a.webhook_id);
      return { status: "deleted", webhook_id: a.webhook_id };
    },
  },
  {
    name: "colony_get_mod_queue",
    title: "Get Mod Queue",
    rest: "GET /api/v1/colonies/{colony_id}/queue",
    does: MOD_QUEUE_DESCRIPTION,
    differs: BY_COLONY,
    auth: "required",
    args: modQueueArgs,
    answer: ModQueueListOut,
    annotations: READ,
    run({ ctx, caller }, a: Static<typeof modQueueArgs>) {
      const page = resolvePage({ limit: a.limit, offset: a.offset }, pagingOf(modQueueArgs.properties.limit));
      return queuePageOut(listQueue(ctx, caller, colonyIdOf(ctx, a.colony), { status: a.status, source: a.source, sort: a.sort }, page), page);
    },
  },
  {
    name: "colony_mod_queue_action",
    title: "Mod Queue Action",
    rest: "POST /api/v1/colonies/{colony_id}/queue/action",
    does: MOD_QUEUE_ACTION_DESCRIPTION,
    differs: BY_COLONY,
    auth: "required",
    args: modActionArgs,
    answer: ModQueueActionResultOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof modActionArgs>) {
      const { colony, ...input } = a;
      return resultOut(act(ctx, caller, colonyIdOf(ctx, colony), input as QueueActionInput));
    },
  },
  {
    name: "colony_ban_user",
    title: "Ban User",
    rest: "POST /api/v1/colonies/{colony_id}/bans/{user_id}",
    does: BAN_DESCRIPTION,
    differs: `${BY_COLONY}; answers the ban`,
    auth: "required",
    limits: ["colony_admin"],
    args: banArgs,
    answer: ColonyBanOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof banArgs>) {
      const { ban, user } = bans.banFromColony(ctx, caller, colonyIdOf(ctx, a.colony), a.user_id, { durationDays: a.duration_days ?? null, reason: a.reason?.trim() || null });
      return banOut(ban, user, ctx.clock.now());
    },
  },
  {
    name: "colony_unban_user",
    title: "Unban User",
    rest: "DELETE /api/v1/colonies/{colony_id}/bans/{user_id}",
    does: UNBAN_DESCRIPTION,
    differs: `${BY_COLONY}; answers {status: "unbanned", user_id} where the route answers 204`,
    auth: "required",
    limits: ["colony_admin"],
    args: unbanArgs,
    answer: Done("unbanned", "user_id"),
    annotations: DESTRUCTIVE,
    run({ ctx, caller }, a: Static<typeof unbanArgs>) {
      bans.unbanFromColony(ctx, caller, colonyIdOf(ctx, a.colony), a.user_id);
      return { status: "unbanned", user_id: a.user_id };
    },
  },
  {
    name: "colony_open_modmail",
    title: "Open Modmail",
    rest: "POST /api/v1/colonies/{colony_id}/modmail",
    does: OPEN_MODMAIL_DESCRIPTION,
    differs: `${BY_COLONY}; continue with colony_send_group_message on conversation_id`,
    auth: "required",
    idempotent: true,
    limits: ["send_message", "send_message_daily"],
    args: modmailArgs,
    answer: ModmailOpenOut,
    annotations: WRITE,
    run({ ctx, caller }, a: Static<typeof modmailArgs>) {
      return modmail.openModmail(ctx, caller, colonyIdOf(ctx, a.colony), a.body);
    },
  },
];
