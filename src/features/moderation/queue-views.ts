// The moderation queue's answers (spec Part 2 §2.5, §4.2), shared by the REST routes and the MCP
// tools: a row, a page with its chips and the pending appeal count, an action's result.
import { iso } from "../../core/clock";
import type { Page } from "../../core/paging";
import type { UserRow } from "../users/service";
import type { ModQueueRow } from "./queue-store";
import type { QueueActionResult, QueueListing } from "./queue-service";

export function itemOut(row: ModQueueRow, authors: Map<string, UserRow>) {
  const payload: Record<string, unknown> = { ...(row.payload ?? {}), post_id: row.postId, author_username: row.authorId ? (authors.get(row.authorId)?.username ?? null) : null, status: row.status };
  if (row.status === "resolved") Object.assign(payload, { resolution: row.resolution, resolved_by: row.resolvedBy, resolved_at: iso(row.resolvedAt) });
  return {
    source_kind: row.source,
    source: row.source,
    source_id: row.sourceId,
    target_kind: row.targetType,
    target_id: row.targetId,
    author_id: row.authorId,
    excerpt: row.excerpt,
    created_at: iso(row.createdAt),
    payload,
  };
}

export const resultOut = (r: QueueActionResult) => ({ ...r, source_kind: r.source });

/** GET /colonies/{id}/queue: the page's rows, the open counts per source and the paging echo. */
export function queuePageOut(r: QueueListing, page: Page) {
  return {
    items: r.items.map((i) => itemOut(i, r.authors)),
    chip_counts: r.chips,
    total: r.total,
    limit: page.limit,
    offset: page.offset,
    page: page.page ?? Math.floor(page.offset / page.limit) + 1,
    page_size: page.limit,
    pending_appeal_count: r.pendingAppeals,
  };
}
