// Message rows to wire JSON (the reference service's MessageOut and friends). Every page of
// messages is rendered with a fixed number of batched reads, whatever its length.
import type { Table } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { prepared, rowMapper, rowsByIds } from "../../db/statements";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { deletedUserOut, userOut } from "../users/views";
import { preview, receiptsOffIn, type AttachmentRow, type MessageRow } from "./service";
import { messageAttachments, messageReactions, messageReads, messages } from "./tables";

const attachmentUrl = (ctx: Ctx, id: string, variant: "thumb" | "full") => `${ctx.config.publicUrl}/api/v1/messages/attachments/${id}/${variant}`;

export function attachmentOut(ctx: Ctx, a: AttachmentRow) {
  return {
    id: a.id,
    mime_type: a.mimeType,
    size_bytes: a.sizeBytes,
    width: a.width,
    height: a.height,
    thumb_url: attachmentUrl(ctx, a.id, "thumb"),
    full_url: attachmentUrl(ctx, a.id, "full"),
  };
}

/**
 * The rows of a message-keyed table for the given message ids, oldest first by `orderBy`, through one
 * statement prepared per table (the same SQL text for any number of ids).
 */
function byMessageIds<T>(ctx: Ctx, table: Table, name: string, ids: readonly string[], orderBy = "created_at"): T[] {
  const { stmt, map } = prepared(ctx.db, `messages.byMessageIds.${name}`, () => ({
    stmt: ctx.db.$client.prepare(`select * from "${name}" where message_id in (select value from json_each(?)) order by ${orderBy} asc`),
    map: rowMapper<T>(table),
  }));
  return (stmt.all(JSON.stringify(ids)) as Record<string, unknown>[]).map(map);
}

function userOf(ctx: Ctx, byId: Map<string, UserRow>, id: string) {
  const u = byId.get(id);
  return users.isActive(u) ? userOut(ctx, u) : deletedUserOut(ctx, id);
}

type MessageOut = ReturnType<typeof messageViews>[number];

/**
 * MessageOut for each row, as `viewerId` sees it. `is_read`/`read_at`: for the viewer's own
 * message, whether (and when first) anyone else has read it; for someone else's, whether the
 * viewer has. A deleted message is a tombstone: empty body, no reactions or attachments,
 * `deleted: true`.
 */
export function messageViews(ctx: Ctx, viewerId: string, rows: readonly MessageRow[]) {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const replyIds = [...new Set(rows.map((r) => r.replyToId).filter((x): x is string => !!x))];
  const replyById = rowsByIds<MessageRow>(ctx.db, messages, "messages", replyIds);
  const replies = [...replyById.values()];
  const reactions = byMessageIds<typeof messageReactions.$inferSelect>(ctx, messageReactions, "message_reactions", ids);
  // Reads of members who turned receipts off are shown to nobody else.
  const hiddenIn = new Map([...new Set(rows.map((r) => r.conversationId))].map((c) => [c, receiptsOffIn(ctx, c)]));
  const byMessage = new Map(rows.map((r) => [r.id, r.conversationId]));
  const reads = byMessageIds<typeof messageReads.$inferSelect>(ctx, messageReads, "message_reads", ids, "read_at").filter((r) => r.userId === viewerId || !hiddenIn.get(byMessage.get(r.messageId)!)?.has(r.userId));
  const attachments = byMessageIds<AttachmentRow>(ctx, messageAttachments, "message_attachments", ids).filter((a) => a.deletedAt === null);
  const userIds = new Set<string>();
  for (const r of rows) userIds.add(r.senderId);
  for (const r of replies) userIds.add(r.senderId);
  for (const r of reactions) userIds.add(r.userId);
  const byId = users.findManyByIds(ctx, [...userIds]);

  const group = <T, K>(list: readonly T[], key: (t: T) => K) => {
    const m = new Map<K, T[]>();
    for (const x of list) {
      const arr = m.get(key(x));
      if (arr) arr.push(x);
      else m.set(key(x), [x]);
    }
    return m;
  };
  const reactionsBy = group(reactions, (r) => r.messageId);
  const readsBy = group(reads, (r) => r.messageId);
  const attachmentsBy = group(attachments, (a) => a.messageId);

  return rows.map((m) => {
    const deleted = m.deletedAt !== null;
    const readRows = readsBy.get(m.id) ?? [];
    let readAt: number | null = null;
    if (m.senderId === viewerId) {
      for (const r of readRows) if (r.userId !== viewerId && (readAt === null || r.readAt < readAt)) readAt = r.readAt;
    } else {
      readAt = readRows.find((r) => r.userId === viewerId)?.readAt ?? null;
    }
    const reply = m.replyToId ? replyById.get(m.replyToId) : undefined;
    return {
      id: m.id,
      conversation_id: m.conversationId,
      sender: userOf(ctx, byId, m.senderId),
      body: deleted ? "" : m.body,
      is_read: readAt !== null,
      read_at: iso(readAt),
      edited_at: deleted ? null : iso(m.editedAt),
      reactions: deleted
        ? []
        : (reactionsBy.get(m.id) ?? []).map((r) => ({ emoji: r.emoji, user_id: r.userId, username: byId.get(r.userId)?.username ?? "[deleted]", created_at: iso(r.createdAt) })),
      reply_to: reply
        ? {
            id: reply.id,
            sender_id: reply.senderId,
            sender_username: byId.get(reply.senderId)?.username ?? "[deleted]",
            body_preview: reply.deletedAt !== null ? "" : preview(reply.body),
            deleted: reply.deletedAt !== null,
          }
        : null,
      attachments: deleted ? [] : (attachmentsBy.get(m.id) ?? []).map((a) => attachmentOut(ctx, a)),
      forwarded_from_id: m.forwardedFromId,
      deleted,
      created_at: iso(m.createdAt),
    };
  });
}

/**
 * MessageOut of a message just sent by `sender`: nothing has read or reacted to it yet, so only a
 * reply target or attachments need the database (the send path stays a handful of statements).
 */
export function sentMessageView(ctx: Ctx, sender: UserRow, m: MessageRow): MessageOut {
  if (m.replyToId || m.forwardedFromId || hasAttachments(ctx, m.id)) return messageViews(ctx, sender.id, [m])[0];
  return {
    id: m.id,
    conversation_id: m.conversationId,
    sender: userOut(ctx, sender),
    body: m.body,
    is_read: false,
    read_at: null,
    edited_at: null,
    reactions: [],
    reply_to: null,
    attachments: [],
    forwarded_from_id: null,
    deleted: false,
    created_at: iso(m.createdAt),
  };
}

function hasAttachments(ctx: Ctx, messageId: string): boolean {
  const stmt = prepared(ctx.db, "messages:hasAttachments", () => ctx.db.$client.prepare("select 1 as x from message_attachments where message_id = ? limit 1"));
  return !!stmt.get(messageId);
}
