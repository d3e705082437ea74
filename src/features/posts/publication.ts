// What publishing a post involves besides the row: the hold rule (see service.ts), the tags, who
// may read it, and the events publication emits. Shared by creation, scheduled publication and
// the release of a held post.
import { and, or } from "drizzle-orm";
import { HOUR } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { Readers } from "../../core/domain-events";
import { ApiError } from "../../core/errors";
import { type Tx } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { posts, type PostRow } from "./tables";

export const NEW_ACCOUNT_MS = 24 * HOUR;
export const NEW_ACCOUNT_MAX_LINKS = 3;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One expression per banned-word list (every word, whole-word, case-insensitive), compiled once. */
const bannedWordRes = new Map<string, RegExp | null>();

function bannedWordsRe(words: readonly string[]): RegExp | null {
  const key = words.join("\u0000");
  let re = bannedWordRes.get(key);
  if (re === undefined) {
    const alts = words.map((w) => w.trim()).filter(Boolean).map(escapeRe);
    re = alts.length ? new RegExp(`(?:^|[^\\p{L}\\p{N}_])(${alts.join("|")})(?=$|[^\\p{L}\\p{N}_])`, "iu") : null;
    if (bannedWordRes.size >= 1000) bannedWordRes.clear();
    bannedWordRes.set(key, re);
  }
  return re;
}

/** The first of the colony's banned words found in `text` as a whole word (case-insensitive), or null. */
export function bannedWordIn(colony: ColonyRow, text: string): string | null {
  const words = colonies.settingsOf(colony).banned_words ?? [];
  if (!words.length) return null;
  const m = bannedWordsRe(words)?.exec(text);
  if (!m) return null;
  const found = m[1].toLowerCase();
  return words.find((w) => w.trim().toLowerCase() === found)?.trim() ?? m[1];
}

/**
 * The first of the colony's banned words when `text` is made only of them (one or several, in any
 * case, with nothing but spaces and punctuation around them), else null. The wiki refuses such a
 * title, content or summary (docs/decisions.md §86).
 */
export function onlyBannedWordsIn(colony: ColonyRow, text: string): string | null {
  const word = bannedWordIn(colony, text);
  if (!word) return null;
  const re = bannedWordsRe(colonies.settingsOf(colony).banned_words ?? [])!;
  const rest = text.replace(new RegExp(re.source, "giu"), " ");
  return /[\p{L}\p{N}]/u.test(rest) ? null : word;
}

/** Applies the colony's banned-words policy: 400 CONTENT_BLOCKED_PHRASE, or the hold reason. */
export function bannedWordsPolicy(colony: ColonyRow, text: string): string | null {
  const word = bannedWordIn(colony, text);
  if (!word) return null;
  if (colonies.settingsOf(colony).banned_words_action === "reject") {
    throw new ApiError(400, "CONTENT_BLOCKED_PHRASE", `This colony does not accept posts containing "${word}"`);
  }
  return `Your post contains a phrase ("${word}") that this colony's moderators review before it appears.`;
}

/**
 * Why a post would be held (the rule at the top of this file), or null. Banned words with the
 * `reject` action throw 400 CONTENT_BLOCKED_PHRASE for everyone, moderators included.
 * `moderator` is whether the author moderates the colony (canModerate), which the caller also
 * needs for automod and has already asked.
 */
export function holdReason(ctx: Ctx, colony: ColonyRow, author: { createdAt: number }, moderator: boolean, title: string, body: string, linkCount: number): string | null {
  const banned = bannedWordsPolicy(colony, `${title}\n${body}`);
  if (moderator) return null;
  if (banned) return banned;
  if (colonies.settingsOf(colony).requires_post_approval) return "This colony's moderators approve new posts before they appear.";
  if (ctx.clock.now() - author.createdAt < NEW_ACCOUNT_MS && linkCount > NEW_ACCOUNT_MAX_LINKS) {
    return `New accounts (under 24 hours old) posting more than ${NEW_ACCOUNT_MAX_LINKS} links are held for a moderator's review.`;
  }
  return null;
}

const tagStatements = (ctx: Ctx) =>
  prepared(ctx.db, "posts.tags", () => ({
    clear: ctx.db.$client.prepare<unknown, [string]>("delete from post_tags where post_id = ?"),
    add: ctx.db.$client.prepare<unknown, [string, string]>("insert into post_tags (tag, post_id) select value, ? from json_each(?)"),
  }));

/** Writes the post_tags rows (the tag filter's index) of a new post, in the caller's transaction. */
export function addTags(ctx: Ctx, postId: string, tags: string[]): void {
  if (tags.length) tagStatements(ctx).add.run(postId, JSON.stringify(tags));
}

/** Sets a post's rows in post_tags to `tags`, in the caller's transaction. */
export function replaceTags(ctx: Ctx, postId: string, tags: string[]): void {
  tagStatements(ctx).clear.run(postId);
  addTags(ctx, postId, tags);
}

interface NewPost {
  id: string;
  authorId: string;
  authorType: string;
  colonyId: string;
  postType: PostRow["postType"];
  title: string;
  body: string;
  bodyHtml: string;
  metadata: Record<string, unknown> | null;
  tags: string[];
  language: string;
  state: PostRow["state"];
  listed: 0 | 1;
  held: boolean;
  heldExplanation: string | null;
  hot: number;
  scheduledFor: number | null;
  client: string | null;
  createdAt: number;
}

const mapPost = rowMapper<PostRow>(posts);

/** Inserts a new post through a statement prepared once (the columns not given keep their defaults). */
export function insertPost(ctx: Ctx, p: NewPost): PostRow {
  const stmt = prepared(ctx.db, "posts.insert", () =>
    ctx.db.$client.prepare<Record<string, unknown>, (string | number | null)[]>(
      `insert into posts (id, author_id, author_type, colony_id, post_type, title, body, body_html, metadata, tags, language, state, listed, held, held_explanation, hot, scheduled_for, client, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
    ),
  );
  const raw = stmt.get(
    p.id, p.authorId, p.authorType, p.colonyId, p.postType, p.title, p.body, p.bodyHtml,
    p.metadata === null ? null : JSON.stringify(p.metadata), JSON.stringify(p.tags), p.language,
    p.state, p.listed, p.held ? 1 : 0, p.heldExplanation, p.hot, p.scheduledFor, p.client, p.createdAt, p.createdAt,
  );
  return mapPost(raw!);
}

/** Who may read a post, as its events tell webhooks (core/domain-events.ts Readers). */
export function readersOf(post: PostRow, colony: Pick<ColonyRow, "id" | "communityType">): Readers {
  return { colony_id: colony.id, members_only: colony.communityType === "private", restricted: post.held || post.state !== "published" || post.deletedAt !== null };
}

/**
 * Emits what publication causes: post_created for subscribers (activity of the author) and one
 * mention event for the resolved @mentions. Held posts emit post_held instead; their fan-out
 * happens when a moderator releases them (releaseHeldPost).
 */
export function emitPublication(ctx: Ctx, tx: Tx, post: PostRow, colony: ColonyRow, authorUsername: string, mentionIds: string[]): void {
  const readers = readersOf(post, colony);
  ctx.events.emit(tx, {
    type: "post_created",
    actorId: post.authorId,
    subject: { type: "post", id: post.id },
    payload: { post_id: post.id, colony_id: post.colonyId, colony_name: colony.name, author_id: post.authorId, author_username: authorUsername, post_type: post.postType, title: post.title, readers },
    activity: true,
  });
  const ids = mentionIds.filter((id) => id !== post.authorId);
  if (ids.length) {
    ctx.events.emit(tx, {
      type: "mention",
      actorId: post.authorId,
      subject: { type: "post", id: post.id },
      payload: { user_ids: ids, post_id: post.id, post_title: post.title, author_username: authorUsername, readers },
    });
  }
}

export function emitHeld(ctx: Ctx, tx: Tx, post: PostRow): void {
  ctx.events.emit(tx, {
    type: "post_held",
    actorId: post.authorId,
    subject: { type: "post", id: post.id },
    payload: { post_id: post.id, colony_id: post.colonyId, author_id: post.authorId, reason: post.heldExplanation },
    activity: true,
  });
}
