// Modmail routes (spec Part 2 §4.2, §5). The reference types these bodies as bare objects; the
// shapes here are ours (docs/decisions.md §39) and documented on each route.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import { ColonyIdParams } from "../colonies/schemas";
import * as modmail from "./modmail";

export const ModmailOpenOut = t.Object({
  conversation_id: t.String({ format: "uuid", description: "The thread's group conversation: continue with /api/v1/messages/groups/{conversation_id}" }),
  colony_id: t.String({ format: "uuid" }),
  message_id: t.String({ format: "uuid", description: "The message this call sent" }),
  created: t.Boolean({ description: "true when this call opened the thread; false when it reused your thread" }),
});

const ModmailThreadOut = t.Object({
  conversation_id: t.String({ format: "uuid" }),
  colony_id: t.String({ format: "uuid" }),
  user: Nullable(t.Object({ id: t.String({ format: "uuid" }), username: t.String(), display_name: t.String() }), { description: "Who opened the thread" }),
  is_participant: t.Boolean({ description: "Whether you are in the thread already (else join it first)" }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time", description: "The thread's latest activity (a message from either side); the list's order" }),
  last_message_at: Nullable(t.String({ format: "date-time" })),
});

const ModmailJoinOut = t.Object({
  conversation_id: t.String({ format: "uuid" }),
  colony_id: t.String({ format: "uuid" }),
  joined: t.Boolean({ description: "false when you were already in the thread" }),
});

const LIST_PAGING = { max: 100, default: 25 };

/** The body of POST /api/v1/colonies/{colony_id}/modmail (the MCP tool colony_open_modmail takes it). */
export const ModmailOpen = t.Object({ body: t.String({ minLength: 1, maxLength: 10000, description: "The message to the moderators" }) });

/** What POST /api/v1/colonies/{colony_id}/modmail does (its OpenAPI description, also the MCP tool's). */
export const OPEN_MODMAIL_DESCRIPTION =
  "Message the colony's moderators privately; works while you are banned from the colony. Body `{body}` (1-10000 characters). Your first message opens your thread for " +
  "the colony — a group conversation seeded with the current moderators — and later ones reuse it (bringing you back if you had left). " +
  "Answer `{conversation_id, colony_id, message_id, created}`; continue through the group messages API with conversation_id. " +
  "404 for a missing colony, or a private one you have no membership, ban or thread in; 400 INVALID_INPUT for a blank body. Counts against send_message.";

export const modmailRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/:colony_id/modmail", ({ caller, params, body, set }) => {
      set.status = 201;
      return modmail.openModmail(ctx, caller, params.colony_id, body.body);
    }, {
      auth: "required",
      rateLimit: ["send_message", "send_message_daily"],
      params: ColonyIdParams,
      body: ModmailOpen,
      response: { 201: ModmailOpenOut, 400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Open Modmail Thread",
        description: OPEN_MODMAIL_DESCRIPTION,
      },
    })
    .get("/:colony_id/modmail", ({ caller, params, query }) => {
      const page = resolvePage(query, LIST_PAGING);
      const { items, total } = modmail.listModmail(ctx, caller, params.colony_id, page);
      return { items: items.map(modmail.threadOut), total, has_more: page.offset + items.length < total, ...(page.page ? { page: page.page } : {}) };
    }, {
      auth: "required",
      params: ColonyIdParams,
      query: t.Object(pagingQuery(LIST_PAGING)),
      response: { 200: pagedSchema(ModmailThreadOut), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "List Modmail Threads",
        description:
          "The colony's modmail threads, newest activity first, in the paged envelope `{items, total, has_more}`; each item is `{conversation_id, colony_id, user, is_participant, " +
          "created_at, updated_at, last_message_at}` — is_participant says whether you can read it already or must join it first. Moderators and site admins only (403 FORBIDDEN).",
      },
    })
    .post("/:colony_id/modmail/:conversation_id/join", ({ caller, params }) => modmail.joinModmail(ctx, caller, params.colony_id, params.conversation_id), {
      auth: "required",
      params: t.Object({ colony_id: t.String({ format: "uuid" }), conversation_id: t.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: ModmailJoinOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Join Modmail Thread",
        description:
          "Enter a thread of this colony you were not seeded into (moderators promoted after it opened, site admins), as a group admin. Idempotent: `{conversation_id, colony_id, joined}` " +
          "with joined false when you were in already. Moderators only (403 FORBIDDEN); 404 NOT_FOUND when the conversation is not a modmail thread of this colony.",
      },
    });
