// Reading a group (spec Part 2 §4.6, §6.3): the newest page of its messages, and marking it read
// for a member (messages_read → dm.group_read to the others, unless the member's receipts are off).
import { count, desc, eq } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import type { Page } from "../../../core/paging";
import { readConversation } from "../direct";
import type { ConversationRow, MemberRow, MessageRow } from "../service";
import { messages } from "../tables";
import { acceptedOf, currentMembers } from "./rows";

/**
 * Marks the group read for the caller and emits `messages_read` (→ dm.group_read to the other
 * members, with the newest message and its read count) through the shared readConversation —
 * addressed to nobody while the caller's receipts are off here (the event still marks the write).
 */
export function readGroup(ctx: Ctx, conv: ConversationRow, member: MemberRow): number {
  const receiptsOff = member.receipts === "off";
  const others = () => (receiptsOff ? [] : acceptedOf(currentMembers(ctx, conv.id)).map((m) => m.userId).filter((id) => id !== member.userId));
  return readConversation(ctx, conv, member.userId, others, { receipts_off: receiptsOff });
}

/** The newest `limit` messages after skipping `offset` from the newest, oldest first, and the total. */
export function latestMessages(ctx: Ctx, convId: string, page: Page): { rows: MessageRow[]; total: number } {
  const total = ctx.db.select({ n: count() }).from(messages).where(eq(messages.conversationId, convId)).get()?.n ?? 0;
  const rows = ctx.db.select().from(messages).where(eq(messages.conversationId, convId)).orderBy(desc(messages.id)).limit(page.limit).offset(page.offset).all().reverse();
  return { rows, total };
}
