// Per-message operations (spec Part 2 §4.7) and the saved list: /api/v1/messages/{message_id}/…
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { withAliases } from "../../http/deprecations";
import { pagingQuery, resolvePage, type PagingSpec } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { removeFiles } from "./attachments";
import * as ops from "./ops";
import { MarkMessageReadOut, MessageEditHistoryOut, MessageOut, MessageReactionOut, MessageReadsOut, SavedMessagesOut } from "./schemas";
import { messageViews } from "./views";

const SAVED_PAGING: PagingSpec = { max: 100, default: 50 };
const ById = t.Object({ message_id: t.String({ format: "uuid" }) });
const NOT_VISIBLE = "404 NOT_FOUND when the message does not exist or the caller does not participate in its conversation.";

const decodeParam = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export const messageOpsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/messages", tags: ["messages"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/saved", ({ caller, query }) => ops.saved(ctx, caller, resolvePage(query, SAVED_PAGING)), {
      auth: "required",
      query: t.Object(pagingQuery(SAVED_PAGING)),
      response: { 200: SavedMessagesOut, 400: ErrorOut },
      detail: { operationId: "listSavedMessages", summary: "List Saved Messages", description: "The caller's saved (starred) messages, newest saved first, in conversations they still participate in. Group entries carry is_group and conversation_title; 1:1 entries other_username." },
    })
    .post("/:message_id/read", ({ caller, params }) => ops.markRead(ctx, caller, params.message_id), {
      auth: "required",
      params: ById,
      response: { 200: MarkMessageReadOut, 404: ErrorOut },
      detail: { operationId: "markMessageRead", summary: "Mark Message Read", description: `Marks one message read by the caller; idempotent (already:true on repeats). The caller's own message answers {already:true, self_authored:true}. ${NOT_VISIBLE}` },
    })
    .get("/:message_id/reads", ({ caller, params }) => ops.reads(ctx, caller, params.message_id), {
      auth: "required",
      params: ById,
      response: { 200: MessageReadsOut, 404: ErrorOut },
      detail: { operationId: "listMessageReads", summary: "List Message Reads", description: `Who of the other participants has seen the message (with read_at) and who has not. ${NOT_VISIBLE}` },
    })
    .post("/:message_id/reactions", ({ caller, params, body, set }) => {
      const r = ops.addReaction(ctx, caller, params.message_id, body.emoji);
      set.status = r.created ? 201 : 200;
      return r.reaction;
    }, {
      auth: "required",
      rateLimit: "message_reaction",
      params: ById,
      body: t.Object({ emoji: t.String({ maxLength: 30 }) }),
      response: { 200: MessageReactionOut, 201: MessageReactionOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "addReaction",
        summary: "Add Reaction",
        description: `Adds a reaction from the curated set (${ops.MESSAGE_REACTIONS.join(" ")}; 422 INVALID_INPUT otherwise). 201 when added, 200 with the existing reaction when it was already there. At most ${ops.MAX_REACTIONS_PER_USER} different emojis per user per message (400 LIMIT_EXCEEDED). ${NOT_VISIBLE}`,
      },
    })
    .delete("/:message_id/reactions/:emoji", ({ caller, params }) => ops.removeReaction(ctx, caller, params.message_id, decodeParam(params.emoji)), {
      auth: "required",
      params: t.Object({ message_id: t.String({ format: "uuid" }), emoji: t.String({ maxLength: 64 }) }),
      response: { 200: t.Object({ removed: t.Boolean() }), 404: ErrorOut },
      detail: { operationId: "removeReaction", summary: "Remove Reaction", description: `Removes the caller's reaction; idempotent ({removed:false} when there was none). ${NOT_VISIBLE}` },
    })
    .patch("/:message_id", ({ caller, params, body }) => ops.edit(ctx, caller, params.message_id, body.body), {
      auth: "required",
      params: ById,
      body: t.Object({ body: t.String({ minLength: 1, maxLength: 10000 }) }),
      response: { 200: MessageOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "editMessage",
        summary: "Edit Message",
        description: `The sender edits a message within ${ops.EDIT_WINDOW_MS / 60000} minutes of sending; the previous body is kept in the edit history. 403 FORBIDDEN for someone else's message; 403 EDIT_WINDOW_EXPIRED after the window. ${NOT_VISIBLE}`,
      },
    })
    .get("/:message_id/edits", ({ caller, params }) => {
      const r = ops.edits(ctx, caller, params.message_id);
      return { message_id: r.message_id, versions: r.versions.map((v) => withAliases("MessageEditVersion", v)) };
    }, {
      auth: "required",
      params: ById,
      response: { 200: MessageEditHistoryOut, 404: ErrorOut },
      detail: { operationId: "listMessageEdits", summary: "List Message Edits", description: `Every version of the body, the current one first (is_current), then older ones newest first. \`at\` is a deprecated copy of created_at. ${NOT_VISIBLE}` },
    })
    .delete("/:message_id", async ({ caller, params }) => {
      const r = ops.remove(ctx, caller, params.message_id);
      await removeFiles(ctx, r.storagePaths);
      return { deleted: r.deleted };
    }, {
      auth: "required",
      params: ById,
      response: { 200: t.Object({ deleted: t.Boolean() }), 403: ErrorOut, 404: ErrorOut },
      detail: { operationId: "deleteMessage", summary: "Delete Message", description: `The sender soft-deletes a message: a tombstone stays (empty body, deleted:true) and its history, reactions and attachments go. 403 FORBIDDEN for someone else's message. ${NOT_VISIBLE}` },
    })
    .post("/:message_id/star", ({ caller, params }) => ops.toggleStar(ctx, caller, params.message_id), {
      auth: "required",
      params: ById,
      response: { 200: t.Object({ saved: t.Boolean() }), 404: ErrorOut },
      detail: { operationId: "toggleStarMessage", summary: "Toggle Star Message", description: `Toggles whether the caller has saved the message. ${NOT_VISIBLE}` },
    })
    .post("/:message_id/forward", ({ caller, params, query, body, set }) => {
      const recipient = query.recipient_username ?? body?.recipient_username;
      if (!recipient) throw new FieldError(["query", "recipient_username"], "recipient_username is required (in the query or the body)", null, "missing");
      const msg = ops.forward(ctx, caller, params.message_id, recipient, query.comment ?? body?.comment ?? "");
      set.status = 201;
      return messageViews(ctx, caller.id, [msg])[0];
    }, {
      auth: "required",
      rateLimit: ["send_message", "send_message_daily"],
      params: ById,
      query: t.Object({
        recipient_username: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
        comment: t.Optional(t.String({ maxLength: 10000 })),
      }),
      body: t.Optional(t.Object({
        recipient_username: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
        comment: t.Optional(t.String({ maxLength: 10000 })),
      })),
      response: { 201: MessageOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "forwardMessage",
        summary: "Forward Message",
        description: `Re-sends a message to a 1:1 conversation with recipient_username (query or body) as a Markdown blockquote, the source cut to ${ops.FORWARD_SOURCE_CHARS} characters, after the optional comment. Every send rule applies (404 USER_NOT_FOUND, 403 KARMA_TOO_LOW, send_message limits). ${NOT_VISIBLE}`,
      },
    });
