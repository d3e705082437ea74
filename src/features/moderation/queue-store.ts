// The store of the unified moderation queue (spec Part 2 §2.5, §4.2; docs/decisions.md §40): rows
// are opened by the write that puts something in front of the moderators (posts, comments and
// reports call openQueueItem inside their own transaction, automod through recordModeration) and
// resolved by the action that settles them (queue-service.ts) or by the content going away
// (resolveQueueForTarget). It imports none of the features that write to it, so they may call it
// while queue-service.ts calls their services.
import type { Ctx } from "../../core/context";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { prepared, rowMapper } from "../../db/statements";
import { colonyModQueue, MOD_QUEUE_SOURCES, type ModQueueSource } from "./tables";

export type ModQueueRow = typeof colonyModQueue.$inferSelect;
const mapRow = rowMapper<ModQueueRow>(colonyModQueue);

export const EXCERPT_MAX = 280;

// Counts (the chips and the list's total) are cached per database and colony until the next write
// of this module: every write of the queue goes through the functions below, which bump the
// version. A bump whose transaction rolls back only costs a recount. A count walks an index entry
// per open row, so a long queue's first page would otherwise pay for the whole queue.
const versions = new WeakMap<object, { n: number; elsewhere: number; counts: Map<string, { v: number; value: unknown }> }>();

/** The counts of this database, emptied when another process committed (it may have written the queue). */
function stateOf(ctx: Ctx) {
  let st = versions.get(ctx.db.$client);
  if (!st) versions.set(ctx.db.$client, (st = { n: 0, elsewhere: ctx.events.elsewhere, counts: new Map() }));
  if (st.elsewhere !== ctx.events.elsewhere) {
    st.elsewhere = ctx.events.elsewhere;
    st.counts.clear();
  }
  return st;
}

const bump = (ctx: Ctx) => void stateOf(ctx).n++;

function cachedCount<T>(ctx: Ctx, key: string, compute: () => T): T {
  const st = stateOf(ctx);
  const hit = st.counts.get(key);
  if (hit && hit.v === st.n) return hit.value as T;
  const value = compute();
  if (st.counts.size >= 10_000) st.counts.clear();
  st.counts.set(key, { v: st.n, value });
  return value;
}

/** The first EXCERPT_MAX characters of a text, whitespace collapsed. */
export function excerptOf(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_MAX ? flat.slice(0, EXCERPT_MAX - 1) + "…" : flat;
}

export interface NewQueueItem {
  colonyId: string;
  source: ModQueueSource;
  sourceId: string;
  targetType: "post" | "comment";
  targetId: string;
  postId: string | null;
  authorId: string | null;
  excerpt: string;
  payload?: Record<string, unknown> | null;
}

/**
 * Opens a queue row on the caller's connection (call it inside the write's transaction). A source
 * already holding an open row keeps it (returns null).
 */
export function openQueueItem(ctx: Ctx, item: NewQueueItem): string | null {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const stmt = prepared(ctx.db, "moderation.queue.open", () =>
    ctx.db.$client.prepare<{ id: string }, (string | number | null)[]>(
      `insert into colony_mod_queue (id, colony_id, source, source_id, target_type, target_id, post_id, author_id, excerpt, payload, status, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) on conflict do nothing returning id`,
    ),
  );
  bump(ctx);
  const row = stmt.get(
    id, item.colonyId, item.source, item.sourceId, item.targetType, item.targetId, item.postId, item.authorId,
    excerptOf(item.excerpt), item.payload ? JSON.stringify(item.payload) : null, now,
  );
  return row?.id ?? null;
}

/** The open row of a source, or else its latest resolved one; null when the source never opened one in this colony. */
export function findQueueItem(ctx: Ctx, colonyId: string, source: string, sourceId: string): ModQueueRow | null {
  const stmt = prepared(ctx.db, "moderation.queue.find", () =>
    ctx.db.$client.prepare<Record<string, unknown>, [string, string, string]>(
      "select * from colony_mod_queue where colony_id = ? and source = ? and source_id = ? order by status = 'open' desc, created_at desc limit 1",
    ),
  );
  const raw = stmt.get(colonyId, source, sourceId.toLowerCase());
  return raw ? mapRow(raw) : null;
}

/** Marks one open row resolved; false when it was not open any more. */
export function resolveQueueItem(ctx: Ctx, id: string, resolution: string, by: string | null): boolean {
  const stmt = prepared(ctx.db, "moderation.queue.resolve", () =>
    ctx.db.$client.prepare<unknown, [string, string | null, number, string]>(
      "update colony_mod_queue set status = 'resolved', resolution = ?, resolved_by = ?, resolved_at = ? where id = ? and status = 'open'",
    ),
  );
  bump(ctx);
  return stmt.run(resolution, by, ctx.clock.now(), id).changes > 0;
}

/**
 * Resolves every open row about a post or comment (and, for a post, about its comments), except
 * `exceptId`; returns the rows it resolved. For cascades: the content was removed or deleted.
 */
export function resolveQueueForTarget(ctx: Ctx, targetId: string, resolution: string, by: string | null, exceptId: string | null = null): ModQueueRow[] {
  const stmt = prepared(ctx.db, "moderation.queue.resolveTarget", () =>
    ctx.db.$client.prepare<Record<string, unknown>, [string, string | null, number, string, string]>(
      `update colony_mod_queue set status = 'resolved', resolution = ?1, resolved_by = ?2, resolved_at = ?3
       where status = 'open' and (target_id = ?4 or (post_id = ?4 and target_type = 'comment')) and id != ?5 returning *`,
    ),
  );
  bump(ctx);
  return stmt.all(resolution, by, ctx.clock.now(), targetId, exceptId ?? "").map(mapRow);
}

export interface QueueFilter {
  status: "open" | "resolved";
  source?: string;
  sort: "newest" | "oldest";
}

/** One page of a colony's queue: two statements on the list index (rows, then the count). */
export function listQueue(ctx: Ctx, colonyId: string, f: QueueFilter, page: Page): { items: ModQueueRow[]; total: number } {
  const dir = f.sort === "oldest" ? "asc" : "desc";
  const bySource = f.source !== undefined;
  const key = `moderation.queue.list.${dir}.${bySource ? "source" : "all"}`;
  const stmt = prepared(ctx.db, key, () =>
    ctx.db.$client.prepare<Record<string, unknown>, (string | number)[]>(
      `select * from colony_mod_queue where colony_id = ? and status = ?${bySource ? " and source = ?" : ""}
       order by created_at ${dir}, id ${dir} limit ? offset ?`,
    ),
  );
  const args: string[] = bySource ? [colonyId, f.status, f.source!] : [colonyId, f.status];
  const items = stmt.all(...args, page.limit, page.offset).map(mapRow);
  let total: number;
  if (page.offset === 0 && items.length < page.limit) total = items.length;
  else {
    const count = prepared(ctx.db, `moderation.queue.count.${bySource ? "source" : "all"}`, () =>
      ctx.db.$client.prepare<{ n: number }, string[]>(`select count(*) as n from colony_mod_queue where colony_id = ? and status = ?${bySource ? " and source = ?" : ""}`),
    );
    total = cachedCount(ctx, `total:${args.join(":")}`, () => count.get(...args)?.n ?? 0);
  }
  return { items, total };
}

/** Open rows per source (every source present, zeros included): the queue's chips and mod activity's backlog. */
export function openCounts(ctx: Ctx, colonyId: string): Record<ModQueueSource, number> {
  const stmt = prepared(ctx.db, "moderation.queue.chips", () =>
    ctx.db.$client.prepare<{ source: ModQueueSource; n: number }, [string]>(
      "select source, count(*) as n from colony_mod_queue where colony_id = ? and status = 'open' group by source",
    ),
  );
  const counts = cachedCount(ctx, `chips:${colonyId}`, () => {
    const out = Object.fromEntries(MOD_QUEUE_SOURCES.map((s) => [s, 0])) as Record<ModQueueSource, number>;
    for (const r of stmt.all(colonyId)) out[r.source] = r.n;
    return out;
  });
  return { ...counts };
}

/** Resolves the open report rows about exactly one post or comment, except `exceptId`; returns them. */
export function resolveReportRows(ctx: Ctx, targetId: string, resolution: string, by: string | null, exceptId: string): ModQueueRow[] {
  const stmt = prepared(ctx.db, "moderation.queue.resolveReports", () =>
    ctx.db.$client.prepare<Record<string, unknown>, [string, string | null, number, string, string]>(
      `update colony_mod_queue set status = 'resolved', resolution = ?, resolved_by = ?, resolved_at = ?
       where target_id = ? and status = 'open' and source = 'open_report' and id != ? returning *`,
    ),
  );
  bump(ctx);
  return stmt.all(resolution, by, ctx.clock.now(), targetId, exceptId).map(mapRow);
}
