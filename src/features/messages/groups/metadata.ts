// A group's title and description: their limits, the title rule a new group shares, and the
// admins' edit (PATCH /messages/groups/{id}, emitting group_updated).
import { eq } from "drizzle-orm";
import type { Ctx } from "../../../core/context";
import { ApiError, FieldError } from "../../../core/errors";
import type { Caller } from "../../auth/service";
import type { ConversationRow } from "../service";
import { conversations } from "../tables";
import { requireChangeable } from "./access";

export const MAX_TITLE = 100;
export const MAX_DESCRIPTION = 500;

/** The title trimmed: 400 INVALID_INPUT when blank, 422 past MAX_TITLE characters. */
export function cleanTitle(raw: string): string {
  const title = raw.trim();
  if (!title) throw new ApiError(400, "INVALID_INPUT", "title must not be empty");
  if (title.length > MAX_TITLE) throw new FieldError(["query", "title"], `title must be at most ${MAX_TITLE} characters`, raw, "string_too_long");
  return title;
}

/** PATCH /messages/groups/{id}: title (1-100 after trimming) and description (max 500; "" or null clears). */
export function updateMetadata(ctx: Ctx, caller: Caller, convId: string, input: { title?: string; description?: string | null }) {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  const set: Partial<ConversationRow> = {};
  if (input.title !== undefined) set.title = cleanTitle(input.title);
  if (input.description !== undefined) {
    const d = input.description?.trim() ?? "";
    if (d.length > MAX_DESCRIPTION) throw new FieldError(["body", "description"], `description must be at most ${MAX_DESCRIPTION} characters`, input.description, "string_too_long");
    set.description = d || null;
  }
  if (!Object.keys(set).length) return { title: conv.title, description: conv.description };
  return ctx.db.transaction((tx) => {
    const row = tx.update(conversations).set(set).where(eq(conversations.id, conv.id)).returning().get()!;
    ctx.events.emit(tx, {
      type: "group_updated",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { conversation_id: conv.id, title: row.title, description: row.description, changed: Object.keys(set) },
    });
    return { title: row.title, description: row.description };
  });
}
