// Full-text search within one group (GET /messages/groups/{id}/search) over messages_fts
// (migrations/0016_group_messages_fts.sql). The index holds live messages only (a soft delete
// drops the entry) and carries each message's conversation as the token zc<id hex> in a `scope`
// column no search text can reach, so one MATCH expresses both the text and the group: the count
// is a single FTS5 count and the page is the index's own bm25 order.
import type { Ctx } from "../../../core/context";
import { prepared } from "../../../db/statements";
import type { Page } from "../../../core/paging";
import type { Caller } from "../../auth/service";
import { toFtsQuery } from "../../posts/search";
import { mapMessage } from "../service";
import { requireMember } from "./access";
import { groupMessageViews } from "./views";

const MARK_OPEN = "\uE000";
const MARK_CLOSE = "\uE001";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The body with every match wrapped in <mark>…</mark>, everything else HTML-escaped. */
export function highlightHtml(marked: string): string {
  return escapeHtml(marked.replaceAll(MARK_OPEN, "\u0001").replaceAll(MARK_CLOSE, "\u0002")).replaceAll("\u0001", "<mark>").replaceAll("\u0002", "</mark>");
}

/** The FTS5 expression for `text` (a toFtsQuery result) in one conversation. */
export const groupMatch = (text: string, conversationId: string) => `body : (${text}) AND scope : "zc${conversationId.replace(/-/g, "")}"`;

function statements(ctx: Ctx) {
  return prepared(ctx.db, "groups:search", () => ({
    total: ctx.db.$client.prepare("select count(*) as n from messages_fts where messages_fts match ?"),
    page: ctx.db.$client.prepare(
      `select m.*, highlight(messages_fts, 0, '${MARK_OPEN}', '${MARK_CLOSE}') as hl
       from messages_fts join messages m on m.rowid = messages_fts.rowid
       where messages_fts match ?1 and m.conversation_id = ?2 and m.deleted_at is null
       order by messages_fts.rank, m.id desc limit ?3 offset ?4`,
    ),
  }));
}

/**
 * The caller's group's live messages matching `q` (every word required, "phrases" kept, a
 * trailing * a prefix; FTS5 syntax in the text is never interpreted), best match first.
 * Input without a searchable word matches nothing.
 */
export function searchGroup(ctx: Ctx, caller: Caller, convId: string, q: string, page: Page) {
  const { conv } = requireMember(ctx, caller, convId);
  const text = toFtsQuery(q);
  if (!text) return { q, count: 0, results: [], pagination: { total: 0, has_more: false } };
  const s = statements(ctx);
  const match = groupMatch(text, conv.id);
  const total = Number((s.total.get(match) as { n: number }).n);
  const raws = s.page.all(match, conv.id, page.limit, page.offset) as (Record<string, unknown> & { hl: string | null })[];
  const rows = raws.map(mapMessage);
  const views = groupMessageViews(ctx, caller.id, rows);
  const results = views.map((v, i) => ({ ...v, body_highlight: raws[i].hl === null ? null : highlightHtml(raws[i].hl) }));
  return { q, count: results.length, results, pagination: { total, has_more: page.offset + results.length < total } };
}
