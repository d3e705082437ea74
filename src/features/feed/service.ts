// GET /api/v1/feed/for-you (spec Part 1 §4.7). The first page ranks candidates and stores the
// ranked id list as a snapshot (30 minutes); next_cursor pages through that frozen list.
// Rules: own posts excluded; posts the caller upvoted or commented on are demoted (ranked after
// every unengaged item of their pool), not hidden; a post served SERVED_DROP_AFTER times without a
// vote or comment from the caller drops out; personalised candidates are posts (30 days) of
// followed authors and member colonies plus followed authors' comments (4 days); discovery is
// posts of the last 4 days with score >= 2 or >= 4 comments, one per author, at most
// max(1, floor(n/3)) per colony and max(1, floor(n/2)) per post type among the n discovery items;
// discovery share: 100% with no follows and no memberships, 60% with fewer than 5 follows, else 20%.
import { and, eq, lt, sql } from "drizzle-orm";
import { DAY, MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { changes } from "../../db/client";
import { invalid } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Caller } from "../auth/service";
import * as blocks from "../blocks/service";
import * as colonies from "../colonies/service";
import * as comments from "../comments/service";
import { commentsOut } from "../comments/views";
import * as follows from "../follows/service";
import * as posts from "../posts/service";
import type { PostType } from "../posts/tables";
import { postsOut } from "../posts/views";
import * as votes from "../votes/service";
import { feedServed, feedSnapshots } from "./tables";

const SNAPSHOT_TTL_MS = 30 * MINUTE;
const SNAPSHOT_MAX_ITEMS = 200;
const SERVED_DROP_AFTER = 3;
const DISCOVERY_WINDOW_MS = 4 * DAY;
const PERSONAL_WINDOW_MS = 30 * DAY;
const DISCOVERY_MIN_SCORE = 2;
const DISCOVERY_MIN_REPLIES = 4;
const FEW_FOLLOWS = 5;

type Kinds = "all" | "posts" | "comments";
interface SnapItem {
  k: "p" | "c";
  id: string;
  r: string;
  s: number;
}

/** The discovery share of a page for a user with `followCount` follows and `memberCount` memberships. */
function discoveryShare(followCount: number, memberCount: number): number {
  if (followCount === 0 && memberCount === 0) return 1;
  return followCount < FEW_FOLLOWS ? 0.6 : 0.2;
}

/**
 * Picks a diverse subset of `ranked` (best first): one post per author, no colony above a third
 * and no post type above half of the chosen items (caps of 1 below 3 items). Tries the largest
 * size first so the caps hold for the size actually returned.
 */
function diversify<T extends { authorId: string; colonyId: string; postType: string }>(ranked: readonly T[], want: number): T[] {
  for (let n = Math.min(want, ranked.length); n > 0; n--) {
    const colonyCap = Math.max(1, Math.floor(n / 3));
    const typeCap = Math.max(1, Math.floor(n / 2));
    const authors = new Set<string>();
    const byColony = new Map<string, number>();
    const byType = new Map<string, number>();
    const out: T[] = [];
    for (const p of ranked) {
      if (out.length === n) break;
      if (authors.has(p.authorId) || (byColony.get(p.colonyId) ?? 0) >= colonyCap || (byType.get(p.postType) ?? 0) >= typeCap) continue;
      authors.add(p.authorId);
      byColony.set(p.colonyId, (byColony.get(p.colonyId) ?? 0) + 1);
      byType.set(p.postType, (byType.get(p.postType) ?? 0) + 1);
      out.push(p);
    }
    if (out.length === n) return out;
  }
  return [];
}

function servedCounts(ctx: Ctx, userId: string): Map<string, number> {
  const rows = ctx.db.select({ postId: feedServed.postId, n: feedServed.servedCount }).from(feedServed).where(eq(feedServed.userId, userId)).all();
  return new Map(rows.map((r) => [r.postId, r.n]));
}

function recordServed(tx: Pick<Ctx["db"], "insert">, now: number, userId: string, postIds: readonly string[]): void {
  for (const postId of new Set(postIds)) {
    tx
      .insert(feedServed)
      .values({ userId, postId, servedCount: 1, lastServedAt: now })
      .onConflictDoUpdate({ target: [feedServed.userId, feedServed.postId], set: { servedCount: sql`${feedServed.servedCount} + 1`, lastServedAt: now } })
      .run();
  }
}

const quality = (score: number, replies: number) => Math.log10(Math.max(1, score + 1)) + 0.5 * Math.log10(1 + replies);
const recency = (now: number, at: number) => 1 / (1 + Math.max(0, now - at) / DAY);

/** Computes the ranked list for a new snapshot. */
function rank(ctx: Ctx, caller: Caller, kinds: Kinds, postType: PostType | undefined): { items: SnapItem[]; personalised: boolean } {
  const now = ctx.clock.now();
  const followees = follows.followeeIds(ctx, caller.id);
  const memberOf = colonies.approvedMemberColonyIds(ctx, caller.id);
  const share = discoveryShare(followees.length, memberOf.length);
  const followSet = new Set(followees);
  const served = servedCounts(ctx, caller.id);
  // Authors the caller blocks leave the feed.
  const blocked = blocks.blockedIds(ctx, caller.id);

  // Personalised pool.
  const personal: (SnapItem & { postId: string })[] = [];
  if (share < 1) {
    if (kinds !== "comments") {
      for (const p of posts.feedCandidatePosts(ctx, caller, { since: now - PERSONAL_WINDOW_MS, authorIds: followees, colonyIds: memberOf, postType, limit: 500 })) {
        if (blocked.has(p.authorId)) continue;
        const byFollow = followSet.has(p.authorId);
        const s = (byFollow ? 1 : 0.6) * (0.5 + 0.5 * recency(now, p.createdAt)) + 0.1 * quality(p.score, p.commentCount);
        personal.push({ k: "p", id: p.id, postId: p.id, r: byFollow ? "followed_author" : "member_colony", s });
      }
    }
    if (kinds !== "posts") {
      const rows = comments.recentCommentsBy(ctx, followees, now - DISCOVERY_WINDOW_MS, 200);
      const parents = posts.postsByIds(ctx, rows.map((c) => c.postId));
      const cols = colonies.findColonies(ctx, [...parents.values()].map((p) => p.colonyId));
      for (const c of rows) {
        const p = parents.get(c.postId);
        if (!p) continue;
        if (!posts.canSee(ctx, caller, p, cols.get(p.colonyId) ?? null) || !p.listed) continue;
        if (postType && p.postType !== postType) continue;
        personal.push({ k: "c", id: c.id, postId: p.id, r: "followed_author_comment", s: 0.8 * (0.5 + 0.5 * recency(now, c.createdAt)) + 0.05 * Math.log10(1 + Math.max(0, c.score)) });
      }
    }
  }

  // Discovery pool (posts only).
  const personalPostIds = new Set(personal.filter((i) => i.k === "p").map((i) => i.id));
  let discoveryRows = kinds === "comments" ? [] : posts.feedCandidatePosts(ctx, caller, { since: now - DISCOVERY_WINDOW_MS, discovery: { minScore: DISCOVERY_MIN_SCORE, minReplies: DISCOVERY_MIN_REPLIES }, postType, limit: 500 });
  discoveryRows = discoveryRows.filter((p) => !personalPostIds.has(p.id) && !blocked.has(p.authorId));

  // Engagement (demotion) and served-without-engagement (drop) over every candidate post.
  const allPostIds = [...new Set([...personal.map((i) => i.postId), ...discoveryRows.map((p) => p.id)])];
  const voted = votes.votesOf(ctx, caller.id, "post", allPostIds);
  const commented = comments.commentedPostIds(ctx, caller.id, allPostIds);
  const engaged = (postId: string) => voted.get(postId) === 1 || commented.has(postId);
  const dropped = (postId: string) => !engaged(postId) && (served.get(postId) ?? 0) >= SERVED_DROP_AFTER;
  const order = <T extends { s: number; postId: string }>(xs: T[]) => xs.filter((x) => !dropped(x.postId)).sort((a, b) => Number(engaged(a.postId)) - Number(engaged(b.postId)) || b.s - a.s);

  const discRanked = order(discoveryRows.map((p) => ({ p, postId: p.id, s: quality(p.score, p.commentCount) * (0.5 + 0.5 * recency(now, p.createdAt)) })));
  const wantDiscovery = share === 1 ? SNAPSHOT_MAX_ITEMS : Math.ceil(SNAPSHOT_MAX_ITEMS * share);
  const discovery: SnapItem[] = diversify(discRanked.map((d) => ({ ...d, authorId: d.p.authorId, colonyId: d.p.colonyId, postType: d.p.postType })), wantDiscovery).map((d) => ({
    k: "p",
    id: d.p.id,
    r: "discovery",
    s: Math.round(d.s * 1000) / 1000,
  }));
  const personalRanked: SnapItem[] = order(personal).map(({ k, id, r, s }) => ({ k, id, r, s: Math.round(s * 1000) / 1000 }));

  // Interleave: position i is a discovery slot when the running share calls for one.
  const items: SnapItem[] = [];
  let di = 0;
  let pi = 0;
  while (items.length < SNAPSHOT_MAX_ITEMS && (di < discovery.length || pi < personalRanked.length)) {
    const i = items.length;
    const wantDisc = Math.floor((i + 1) * share) > Math.floor(i * share);
    if ((wantDisc && di < discovery.length) || pi >= personalRanked.length) items.push(discovery[di++]);
    else items.push(personalRanked[pi++]);
  }
  return { items, personalised: share < 1 };
}

function encodeCursor(snapshotId: string, offset: number): string {
  return Buffer.from(`${snapshotId}:${offset}`).toString("base64url");
}

function decodeCursor(raw: string): { id: string; offset: number } {
  const m = /^([0-9a-f-]{36}):(\d{1,6})$/.exec(Buffer.from(raw, "base64url").toString("utf8"));
  if (!m) throw invalid("cursor is not a next_cursor from this endpoint");
  return { id: m[1], offset: Number(m[2]) };
}

interface ForYouQuery {
  limit: number;
  offset: number;
  kinds: Kinds;
  post_type?: PostType;
  cursor?: string;
}

/**
 * A request without a cursor reuses the caller's last ranking for the same kinds and post_type
 * when it is younger than this and nothing has been written on the server since (a vote, a
 * comment, a new post or follow by anyone ranks afresh): ranking reads hundreds of candidates,
 * re-reading an unchanged feed should not.
 */
export const SNAPSHOT_REUSE_MS = 60_000;

/**
 * Per server, per caller and request kind: the last ranking while it may be reused, parsed, with
 * the write count it was ranked at and the pages already served from it. In memory: after a
 * restart the next request ranks afresh.
 */
interface Reusable {
  id: string;
  writes: number;
  at: number;
  items: SnapItem[];
  personalised: boolean;
  served: Set<number>;
}
const reusables = new WeakMap<object, Map<string, Reusable>>();

function reusableMap(ctx: Ctx): Map<string, Reusable> {
  let m = reusables.get(ctx.events);
  if (!m) reusables.set(ctx.events, (m = new Map()));
  return m;
}

/** The caller's last ranking for these params if it may serve this request again, else null. */
function reusableSnapshot(ctx: Ctx, key: string, now: number): Reusable | null {
  const r = reusableMap(ctx).get(key);
  return r && r.writes === ctx.events.writes && now - r.at < SNAPSHOT_REUSE_MS ? r : null;
}

function newSnapshot(ctx: Ctx, caller: Caller, q: ForYouQuery, key: string, now: number): Reusable {
  ctx.db.delete(feedSnapshots).where(and(eq(feedSnapshots.userId, caller.id), lt(feedSnapshots.createdAt, now - SNAPSHOT_TTL_MS))).run();
  const ranked = rank(ctx, caller, q.kinds, q.post_type);
  const id = uuidv7(now);
  ctx.db.insert(feedSnapshots).values({ id, userId: caller.id, items: JSON.stringify(ranked.items), personalised: ranked.personalised, servedOffsets: "[]", createdAt: now }).run();
  const map = reusableMap(ctx);
  for (const [k, r] of map) {
    if (now - r.at < SNAPSHOT_REUSE_MS) break;
    map.delete(k);
  }
  const snap: Reusable = { id, writes: ctx.events.writes, at: now, items: ranked.items, personalised: ranked.personalised, served: new Set() };
  map.delete(key);
  map.set(key, snap);
  return snap;
}

export function forYou(ctx: Ctx, caller: Caller, q: ForYouQuery) {
  const now = ctx.clock.now();
  let snap: Pick<Reusable, "id" | "items" | "personalised" | "served">;
  let offset = q.offset;
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    const row = ctx.db.select().from(feedSnapshots).where(eq(feedSnapshots.id, c.id)).get();
    if (!row || row.userId !== caller.id) throw invalid("cursor is not a next_cursor from this endpoint");
    if (now - row.createdAt > SNAPSHOT_TTL_MS) throw invalid("cursor has expired; start again without a cursor");
    snap = { id: row.id, items: JSON.parse(row.items), personalised: row.personalised, served: new Set(JSON.parse(row.servedOffsets) as number[]) };
    offset = c.offset;
  } else {
    const key = `${caller.id}|${q.kinds}|${q.post_type ?? ""}`;
    snap = reusableSnapshot(ctx, key, now) ?? newSnapshot(ctx, caller, q, key, now);
  }
  const items = snap.items;
  const slice = items.slice(offset, offset + q.limit);
  const out = render(ctx, caller, slice);
  // Each page of a snapshot counts as served once, however often it is re-read.
  if (!snap.served.has(offset)) {
    ctx.db.transaction((tx) => {
      const row = tx.select({ servedOffsets: feedSnapshots.servedOffsets }).from(feedSnapshots).where(eq(feedSnapshots.id, snap.id)).get();
      const served = new Set<number>(row ? JSON.parse(row.servedOffsets) : []);
      if (!served.has(offset)) {
        recordServed(tx, now, caller.id, out.filter((i) => i.kind === "post").map((i) => i.post!.id));
        tx.update(feedSnapshots).set({ servedOffsets: JSON.stringify([...served, offset]) }).where(eq(feedSnapshots.id, snap.id)).run();
      }
    });
    snap.served.add(offset);
  }
  const end = offset + slice.length;
  return {
    items: out,
    // False when the page holds nothing but discovery items.
    personalised: snap.personalised && out.some((i) => i.reason !== "discovery"),
    count: out.length,
    next_cursor: end < items.length ? encodeCursor(snap.id, end) : null,
    has_more: end < items.length,
  };
}

/** Snapshot entries to wire items; entries no longer visible (deleted since) are skipped. */
function render(ctx: Ctx, caller: Caller, slice: SnapItem[]) {
  const commentRows = comments.commentsByIds(ctx, slice.filter((i) => i.k === "c").map((i) => i.id));
  const postIds = [...slice.filter((i) => i.k === "p").map((i) => i.id), ...[...commentRows.values()].map((c) => c.postId)];
  const postRows = posts.postsByIds(ctx, postIds);
  const cols = colonies.findColonies(ctx, [...postRows.values()].map((p) => p.colonyId));
  const visible = (id: string) => {
    const p = postRows.get(id);
    return !!p && posts.canSee(ctx, caller, p, cols.get(p.colonyId) ?? null);
  };
  const keep = slice.filter((i) => (i.k === "p" ? visible(i.id) : !!commentRows.get(i.id) && commentRows.get(i.id)!.deletedAt === null && visible(commentRows.get(i.id)!.postId)));
  const postOuts = new Map(postsOut(ctx, keep.filter((i) => i.k === "p").map((i) => postRows.get(i.id)!), caller.id).map((p) => [p.id, p]));
  const commentOuts = new Map(commentsOut(ctx, keep.filter((i) => i.k === "c").map((i) => commentRows.get(i.id)!), caller.id).map((c) => [c.id, c]));
  return keep.map((i) => {
    if (i.k === "p") return { kind: "post" as const, post: postOuts.get(i.id)!, comment: null, reason: i.r, match_score: i.s, on_post_id: null, on_post_title: null };
    const c = commentRows.get(i.id)!;
    return { kind: "comment" as const, post: null, comment: commentOuts.get(i.id)!, reason: i.r, match_score: i.s, on_post_id: c.postId, on_post_title: postRows.get(c.postId)?.title ?? null };
  });
}

/** Served-post records older than this no longer matter: no feed candidate is that old. */
const SERVED_RETENTION_MS = 30 * DAY;

/** Drops expired snapshots and stale served-post records (run by the maintenance schedule). */
export function purgeFeedState(ctx: Ctx): { snapshots: number; served: number } {
  const now = ctx.clock.now();
  const snapshots = changes(ctx.db.delete(feedSnapshots).where(lt(feedSnapshots.createdAt, now - SNAPSHOT_TTL_MS)).run());
  const served = changes(ctx.db.delete(feedServed).where(lt(feedServed.lastServedAt, now - SERVED_RETENTION_MS)).run());
  return { snapshots, served };
}
