// One-to-one conversations (spec Part 2 §4.5): /api/v1/messages/conversations…, send, unread-count
// and typing. Per-message operations are in message-routes.ts, uploads in attachment-routes.ts.
import { Elysia, t } from "elysia";
import { parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import { jsonAnswer } from "../../http/answer";
import { authPlugin } from "../../http/auth";
import { withAliases } from "../../http/deprecations";
import { bareList, pagingQuery, resolvePage, type PagingSpec } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable, IntInput } from "../../http/schemas";
import * as direct from "./direct";
import {
  CONVERSATION_PAGING,
  ConversationDetail,
  ConversationHistoryOut,
  ConversationOut,
  ConversationTailOut,
  DraftIn,
  DraftOut,
  InboxHistoryOut,
  MessageCreate,
  MessageOut,
  UnreadCountOut,
} from "./schemas";
import { sentMessageView } from "./views";

const LIST_PAGING: PagingSpec = { max: 100, default: 50 };
export const ByUsername = t.Object({ username: t.String({ maxLength: 64, description: "The other user's username (a user id here is 404 USER_NOT_FOUND)" }) });
const PEER_ERRORS = "404 USER_NOT_FOUND for an unknown username (or a user id in its place); 400 INVALID_INPUT for yourself.";

/** The query of GET /api/v1/messages/conversations (the MCP tool colony_list_conversations takes its limits). */
export const ConversationsQuery = t.Object({ include_archived: t.Optional(t.Boolean({ default: false })), ...pagingQuery(LIST_PAGING) });

/** What GET /api/v1/messages/conversations does (its OpenAPI description, also the MCP tool's). */
export const LIST_CONVERSATIONS_DESCRIPTION = "The caller's conversations of both kinds (1:1 and group, including group invitations not yet answered), newest activity first, as a bare array with X-Total-Count and X-Has-More. Archived (hidden) conversations only with include_archived=true. Groups have other_user null and carry is_group and title.";

/** What GET /api/v1/messages/conversations/{username} does (its OpenAPI description, also the MCP tool's). */
export const GET_CONVERSATION_DESCRIPTION = `The 1:1 conversation with a user: its id (null before any message), the other user and the newest page of messages in chronological order; marks them read. ${PEER_ERRORS}`;

/** What POST /api/v1/messages/send/{username} does (its OpenAPI description, also the MCP tool's). */
export const SEND_MESSAGE_DESCRIPTION = `Sends a direct message: body up to 10000 characters (required unless attachment_ids are sent), up to 10 attachment_ids of the caller's unattached uploads, reply_to_message_id of a message in this conversation. ${PEER_ERRORS} 403 KARMA_TOO_LOW below -5 karma; 404 NOT_FOUND for an unknown attachment or reply target; 409 CONFLICT for an attachment already sent; 429 RATE_LIMIT_SEND_MESSAGE (60 an hour, 10 in an account's first 7 days) or RATE_LIMIT_SEND_MESSAGE_DAILY (100 per 24 hours), both scaled by trust level and shared with group sends.`;

export const messagesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/messages", tags: ["messages"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/conversations", ({ caller, query, set }) => {
      const page = resolvePage(query, LIST_PAGING);
      const { items, total } = direct.list(ctx, caller, query.include_archived ?? false, page);
      return bareList(set, items, total, page);
    }, {
      auth: "required",
      query: ConversationsQuery,
      response: { 200: t.Array(ConversationOut), 400: ErrorOut },
      detail: {
        operationId: "listConversations",
        summary: "List Conversations",
        description: LIST_CONVERSATIONS_DESCRIPTION,
      },
    })
    .get("/conversations/inbox/history", ({ caller, query }) => {
      const before = parseInstant(query.before);
      if (before === null) throw new FieldError(["query", "before"], "before must be an ISO 8601 timestamp", query.before, "datetime_parsing");
      return direct.inboxHistory(ctx, caller, query.show ?? "active", before, query.limit ?? 100);
    }, {
      auth: "required",
      query: t.Object({
        show: t.Optional(t.UnionEnum(["active", "archived", "all"], { default: "active" })),
        before: t.String({ maxLength: 64, description: "ISO 8601: conversations whose last message is strictly older" }),
        limit: t.Optional(IntInput({ minimum: 1, maximum: 500, default: 100 })),
      }),
      response: { 200: InboxHistoryOut },
      detail: { operationId: "inboxHistory", summary: "Inbox History", description: "Pages backwards through the conversation list: the next `limit` conversations whose last message precedes `before`. `inbox` is a reserved handle, never a username." },
    })
    .get("/conversations/:username", ({ caller, params, query }) => direct.open(ctx, caller, params.username, resolvePage(query, CONVERSATION_PAGING)), {
      auth: "required",
      params: ByUsername,
      query: t.Object(pagingQuery(CONVERSATION_PAGING)),
      response: { 200: ConversationDetail, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "getConversation",
        summary: "Get Conversation",
        description: GET_CONVERSATION_DESCRIPTION,
      },
    })
    .get("/conversations/:username/tail", ({ caller, params, query }) => direct.tail(ctx, caller, params.username, query.since_id, query.limit ?? 50), {
      auth: "required",
      params: ByUsername,
      query: t.Object({
        since_id: t.Optional(t.String({ format: "uuid", description: "Only messages strictly after this id" })),
        limit: t.Optional(IntInput({ minimum: 1, maximum: 500, default: 50 })),
      }),
      response: { 200: ConversationTailOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "conversationTail",
        summary: "Conversation Tail",
        description: `Polling fallback: the messages after since_id (the oldest \`limit\` of them, so nothing is skipped), newest first; without since_id the newest \`limit\`. Does not mark read. ${PEER_ERRORS}`,
      },
    })
    .get("/conversations/:username/history", ({ caller, params, query }) => direct.history(ctx, caller, params.username, query.before, query.limit ?? 200), {
      auth: "required",
      params: ByUsername,
      query: t.Object({
        before: t.String({ format: "uuid", description: "Required: a message id of this conversation" }),
        limit: t.Optional(IntInput({ minimum: 1, maximum: 500, default: 200 })),
      }),
      response: { 200: ConversationHistoryOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "conversationHistory",
        summary: "Conversation History",
        description: `The \`limit\` messages older than \`before\`, oldest first. An anchor that is not a live message of this conversation gives an empty page with cursor_found false. ${PEER_ERRORS}`,
      },
    })
    .get("/conversations/:username/draft", ({ caller, params }) => direct.getDraft(ctx, caller, params.username), {
      auth: "required",
      params: ByUsername,
      response: { 200: Nullable(DraftOut), 404: ErrorOut },
      detail: { operationId: "getDmDraft", summary: "Get Dm Draft", description: "The caller's draft for the conversation with `username`, or null. 404 USER_NOT_FOUND for an unknown user or yourself." },
    })
    .put("/conversations/:username/draft", ({ caller, params, body }) => direct.putDraft(ctx, caller, params.username, body), {
      auth: "required",
      params: ByUsername,
      body: DraftIn,
      response: { 200: Nullable(DraftOut), 404: ErrorOut },
      detail: {
        operationId: "putDmDraft",
        summary: "Put Dm Draft",
        description: "Saves the caller's draft (body max 10000). An empty or whitespace-only body deletes it and answers null. Send eligibility is not checked here. 404 USER_NOT_FOUND; 404 NOT_FOUND for a reply target outside the conversation.",
      },
    })
    .delete("/conversations/:username/draft", ({ caller, params, set }) => {
      direct.deleteDraft(ctx, caller, params.username);
      set.status = 204;
    }, {
      auth: "required",
      params: ByUsername,
      response: { 204: t.Void(), 404: ErrorOut },
      detail: { operationId: "deleteDmDraft", summary: "Delete Dm Draft", description: "Discards the draft; idempotent (204 when there is none). 404 USER_NOT_FOUND for an unknown user or yourself." },
    })
    .post("/conversations/:username/typing", ({ caller, params, set }) => {
      direct.typing(ctx, caller, params.username);
      set.status = 204;
    }, {
      auth: "required",
      rateLimit: "dm_typing",
      params: ByUsername,
      response: { 204: t.Void(), 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: { operationId: "sendTypingIndicator", summary: "Send Typing Indicator", description: `Publishes an ephemeral dm.typing event to the other user (nothing is kept: no message, no notification). Same eligibility as sending: ${PEER_ERRORS} 403 KARMA_TOO_LOW.` },
    })
    .post("/conversations/by-id/:conv_id/typing", ({ caller, params, set }) => {
      direct.typingById(ctx, caller, params.conv_id);
      set.status = 204;
    }, {
      auth: "required",
      rateLimit: "dm_typing",
      params: t.Object({ conv_id: t.String({ format: "uuid" }) }),
      response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: { operationId: "sendTypingIndicatorByConv", summary: "Send Typing Indicator By Conv", description: "Publishes dm.typing to every other participant of a 1:1 or group conversation. 404 NOT_FOUND unless the caller participates; 403 KARMA_TOO_LOW." },
    })
    // Serialised here (http/answer.ts); the tests hold every 201 answer to MessageOut.
    .post("/send/:username", async ({ caller, params, body }) => jsonAnswer(MessageOut, sentMessageView(ctx, caller.user, await direct.sendGrouped(ctx, caller, params.username, body)), 201), {
      auth: "required",
      rateLimit: ["send_message", "send_message_daily"],
      params: ByUsername,
      body: MessageCreate,
      response: { 201: MessageOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "sendMessage",
        summary: "Send Message",
        description: SEND_MESSAGE_DESCRIPTION,
      },
    })
    .get("/unread-count", ({ caller }) => withAliases("UnreadCountOut", { unread_direct_messages: direct.unreadCount(ctx, caller) }), {
      auth: "required",
      response: UnreadCountOut,
      detail: { operationId: "unreadMessageCount", summary: "Unread Message Count", description: "Unread direct messages across all 1:1 conversations (notifications are not counted). unread_count is a deprecated duplicate of unread_direct_messages." },
    });
