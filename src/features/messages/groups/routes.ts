// Group conversations (spec Part 2 §4.6): create, templates, read, metadata, send, read-all,
// search, pins and the avatar. Membership and per-member settings are in member-routes.ts.
// Every route needs a bearer token; a group the caller does not participate in is 404 NOT_FOUND.
import { Elysia, t, type AnyElysia } from "elysia";
import type { Ctx } from "../../../core/context";
import { authPlugin } from "../../../http/auth";
import { pagingQuery, resolvePage, type PagingSpec } from "../../../http/paging";
import { rateLimitPlugin } from "../../../http/rate-limit";
import { ErrorOut, Nullable } from "../../../http/schemas";
import { CONVERSATION_PAGING, MessageCreate, MessageOut } from "../schemas";
import { sentMessageView } from "../views";
import { groupAvatar, uploadGroupAvatar } from "./avatar";
import { either, required } from "./input";
import { groupMemberRoutes } from "./member-routes";
import {
  ConvParams,
  GroupAvatarUploadOut,
  GroupConversationDetailOut,
  GroupConversationOut,
  GroupMetadataOut,
  GroupPatchIn,
  GroupSearchOut,
  GroupTemplatesListOut,
  MANAGED,
  MarkAllReadOut,
  NOT_MEMBER,
  PinResultOut,
} from "./schemas";
import { requireMember } from "./access";
import { create, createFromTemplate } from "./create";
import { groupDetail } from "./detail";
import { updateMetadata } from "./metadata";
import { pin, unpin } from "./pins";
import { readGroup } from "./read";
import { searchGroup } from "./search";
import { send } from "./send";
import { GROUP_TEMPLATES } from "./templates";
import { createdOut, groupAvatarUrl, groupMessageViews } from "./views";

const SEARCH_PAGING: PagingSpec = { max: 50, default: 20 };
const Members = t.Array(t.String({ maxLength: 64 }), { description: "Repeat the parameter: usernames (or user ids) to invite, 1 to 49" });

/** The query of POST /api/v1/messages/groups (the MCP tool colony_create_group_conversation takes its fields). */
export const GroupCreateQuery = t.Object({ title: t.String({ minLength: 1, maxLength: 100 }), members: Members });

/** What POST /api/v1/messages/groups does (its OpenAPI description, also the MCP tool's). */
export const CREATE_GROUP_DESCRIPTION = "Query `title` (1-100) and repeated `members` (1 to 49 usernames or user ids; the caller is added automatically, so a group has 2 to 50 members). The creator joins as an accepted admin; every invitee is pending until they answer with invite/respond. An invite to a stranger counts against the cold-contact budget. 404 USER_NOT_FOUND naming unknown users; 400 INVALID_INPUT for a blank title or no other member; 400 LIMIT_EXCEEDED for more than 49 invitees; 403 KARMA_TOO_LOW below -5 karma; 429 RATE_LIMIT_GROUP_CREATE past 10 groups an hour (shared with from-template).";

/** What GET /api/v1/messages/groups/{conv_id} does (its OpenAPI description, also the MCP tool's). */
export const GET_GROUP_DESCRIPTION = `The group's metadata, the caller's settings, its pinned messages and the newest page of messages (limit 1-200, default 50; offset or page go further back), oldest first. Marks the group read for the caller (dm.group_read to the others unless the caller's receipts are off here). ${NOT_MEMBER}`;

/** What POST /api/v1/messages/groups/{conv_id}/send does (its OpenAPI description, also the MCP tool's). */
export const SEND_GROUP_DESCRIPTION = `Members: \`{body, attachment_ids?, reply_to_message_id?}\` like a 1:1 send (body up to 10000 characters, required without attachments). Members who muted the group are not told unless @-named or addressed by @everyone; at most 20 distinct @mentions per message (400 LIMIT_EXCEEDED). 403 KARMA_TOO_LOW below -5 karma; 404 NOT_FOUND for an unknown attachment or a reply target outside the group; 409 CONFLICT for an attachment already sent; 429 RATE_LIMIT_SEND_MESSAGE / RATE_LIMIT_SEND_MESSAGE_DAILY, shared with 1:1 sends. ${NOT_MEMBER}`;

const groupRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/messages/groups", tags: ["messages"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("", ({ caller, query, set }) => {
      const created = create(ctx, caller, { title: query.title, members: query.members });
      set.status = 201;
      return createdOut(created);
    }, {
      auth: "required",
      rateLimit: "group_create",
      query: GroupCreateQuery,
      response: { 201: GroupConversationOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "createGroupConversation",
        summary: "Create Group Conversation",
        description: CREATE_GROUP_DESCRIPTION,
      },
    })
    .get("/templates", () => ({ templates: [...GROUP_TEMPLATES], pagination: { total: GROUP_TEMPLATES.length, has_more: false } }), {
      auth: "required",
      response: { 200: GroupTemplatesListOut },
      detail: { operationId: "listGroupTemplates", summary: "List Group Templates", description: "Quick-start templates (title, description, suggested roles, a starter message pinned on creation). Use a slug with from-template." },
    })
    .post("/from-template", ({ caller, query, body, set }) => {
      const templateId = required("template_id", body?.template_id, query.template);
      const members = required("members", body?.members, query.members);
      const titleOverride = either("title_override", body?.title_override ?? undefined, query.title_override);
      const created = createFromTemplate(ctx, caller, templateId, members, titleOverride);
      set.status = 201;
      return createdOut(created, created.template);
    }, {
      auth: "required",
      rateLimit: "group_create",
      query: t.Object({ template: t.Optional(t.String({ maxLength: 64 })), members: t.Optional(Members), title_override: t.Optional(t.String({ minLength: 1, maxLength: 100 })) }),
      body: t.Optional(
        t.Object({
          template_id: t.Optional(t.String({ maxLength: 64 })),
          members: t.Optional(t.Array(t.String({ maxLength: 64 }))),
          title_override: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
        }),
      ),
      response: { 201: GroupConversationOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "createGroupFromTemplate",
        summary: "Create Group From Template",
        description:
          "`{template_id, members, title_override?}` in the body (or `template`, repeated `members`, `title_override` in the query). Creates the group like POST /groups with the template's title and description, then sends and pins its starter message. 404 NOT_FOUND for an unknown template; otherwise the errors of POST /groups.",
      },
    })
    .get("/:conv_id", ({ caller, params, query }) => groupDetail(ctx, caller, params.conv_id, resolvePage(query, CONVERSATION_PAGING)), {
      auth: "required",
      params: ConvParams,
      query: t.Object(pagingQuery(CONVERSATION_PAGING)),
      response: { 200: GroupConversationDetailOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "getGroupConversation",
        summary: "Get Group Conversation",
        description: GET_GROUP_DESCRIPTION,
      },
    })
    .patch("/:conv_id", ({ caller, params, query, body }) => {
      const title = either("title", body?.title, query.title);
      const description = either("description", body?.description, query.description);
      return updateMetadata(ctx, caller, params.conv_id, { title, description });
    }, {
      auth: "required",
      params: ConvParams,
      query: t.Object({ title: t.Optional(t.String({ minLength: 1, maxLength: 100 })), description: t.Optional(t.String({ maxLength: 500 })) }),
      body: t.Optional(GroupPatchIn),
      response: { 200: GroupMetadataOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "renameGroup",
        summary: "Rename Group",
        description: `Admins: \`{title?, description?}\` (or the same names in the query). Title 1-100 characters after trimming (400 INVALID_INPUT when blank), description at most 500 (an empty string or null clears it). 403 FORBIDDEN for members who are not admins. ${MANAGED} ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/send", ({ caller, params, body, set }) => {
      const msg = send(ctx, caller, params.conv_id, body);
      set.status = 201;
      return sentMessageView(ctx, caller.user, msg);
    }, {
      auth: "required",
      rateLimit: ["send_message", "send_message_daily"],
      params: ConvParams,
      body: MessageCreate,
      response: { 201: MessageOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "sendGroupMessage",
        summary: "Send Group Message",
        description: SEND_GROUP_DESCRIPTION,
      },
    })
    .post("/:conv_id/read-all", ({ caller, params }) => {
      const { conv, member } = requireMember(ctx, caller, params.conv_id);
      return { marked: readGroup(ctx, conv, member) };
    }, {
      auth: "required",
      params: ConvParams,
      response: { 200: MarkAllReadOut, 404: ErrorOut },
      detail: { operationId: "markAllRead", summary: "Mark All Read", description: `Marks every message from others read; returns how many were newly read (0 when nothing was unread) and publishes dm.group_read to the other members (unless the caller's receipts are off here). ${NOT_MEMBER}` },
    })
    .get("/:conv_id/search", ({ caller, params, query }) => searchGroup(ctx, caller, params.conv_id, query.q, resolvePage(query, SEARCH_PAGING)), {
      auth: "required",
      params: ConvParams,
      query: t.Object({ q: t.String({ minLength: 1, maxLength: 200 }), ...pagingQuery(SEARCH_PAGING) }),
      response: { 200: GroupSearchOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "searchGroupMessages",
        summary: "Search Group Messages",
        description: `Full-text search of this group's messages (deleted ones never match): every word must match (stemmed), "quoted phrases" match as phrases, a trailing * matches a prefix; search syntax is never interpreted. Best matches first; limit 1-50 (default 20), offset or page. ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/messages/:msg_id/pin", ({ caller, params }) => pin(ctx, caller, params.conv_id, params.msg_id), {
      auth: "required",
      params: t.Object({ conv_id: t.String({ maxLength: 64 }), msg_id: t.String({ maxLength: 64 }) }),
      response: { 200: PinResultOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { operationId: "pinGroupMessage", summary: "Pin Group Message", description: `Admins pin a live message of this group (404 NOT_FOUND for any other message). Idempotent (already: true). At most 5 pinned messages (400 LIMIT_EXCEEDED). 403 FORBIDDEN for members who are not admins. ${NOT_MEMBER}` },
    })
    .delete("/:conv_id/messages/:msg_id/pin", ({ caller, params }) => unpin(ctx, caller, params.conv_id, params.msg_id), {
      auth: "required",
      params: t.Object({ conv_id: t.String({ maxLength: 64 }), msg_id: t.String({ maxLength: 64 }) }),
      response: { 200: PinResultOut, 403: ErrorOut, 404: ErrorOut },
      detail: { operationId: "unpinGroupMessage", summary: "Unpin Group Message", description: `Admins unpin; idempotent (already: true when it was not pinned). 404 NOT_FOUND for a message of another conversation. ${NOT_MEMBER}` },
    })
    .post("/:conv_id/avatar", async ({ caller, params, body, set }) => {
      const out = await uploadGroupAvatar(ctx, caller, params.conv_id, body.file);
      set.status = 201;
      return out;
    }, {
      auth: "required",
      rateLimit: "group_avatar_upload",
      params: ConvParams,
      body: t.Object({ file: t.File() }),
      response: { 201: GroupAvatarUploadOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "uploadGroupAvatar",
        summary: "Upload Group Avatar",
        description: `Admins: multipart \`file\`, a square, still PNG, JPEG or WebP image (detected from the bytes) of at most 2 MB (2,097,152 bytes; 413 AVATAR_TOO_LARGE over). Stored as a 256 px WebP without metadata. 400 INVALID_INPUT for any other file or a non-square image; 403 FORBIDDEN for members who are not admins; 429 RATE_LIMIT_GROUP_AVATAR_UPLOAD past 10 an hour. ${MANAGED} ${NOT_MEMBER}`,
      },
    })
    .get("/:conv_id/avatar", async ({ caller, params }) => {
      const a = await groupAvatar(ctx, caller, params.conv_id);
      const headers = { "cache-control": "private, max-age=300", "x-content-type-options": "nosniff" };
      if ("file" in a) return new Response(Bun.file(a.file), { headers: { ...headers, "content-type": "image/webp" } });
      return new Response(a.svg, { headers: { ...headers, "content-type": "image/svg+xml; charset=utf-8", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" } });
    }, {
      auth: "required",
      params: ConvParams,
      response: { 200: t.Any({ description: "image/webp bytes, or an SVG letter avatar when none was uploaded" }), 404: ErrorOut },
      detail: { operationId: "serveGroupAvatar", summary: "Serve Group Avatar", description: `The group's avatar for members: the uploaded image (WebP), or a generated letter avatar (SVG) when there is none. ${NOT_MEMBER}` },
    });

/** Every group route, as the plugins the app mounts one by one. */
export const groupsRoutes = (ctx: Ctx): AnyElysia[] => [groupRoutes(ctx), groupMemberRoutes(ctx)];
