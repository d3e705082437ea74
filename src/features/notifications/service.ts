// Notifications: writing them (`notify`, called by the events' fan-out rules inside the
// transaction of the action that causes them), reading, marking read and deleting them, and
// muted threads.
// Every read and write is scoped to the caller's own rows; a foreign id behaves like an unknown one.
import { and, count, desc, eq, gte, inArray, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { Told } from "../../core/events";
import { notificationsChannel, webKey } from "../../core/realtime";
import { oldestAfter, type Window } from "../../db/window";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { changes, inTransaction, type Db } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import type { Page } from "../../core/paging";
import * as blocks from "../blocks/service";
import * as users from "../users/service";
import { notifications, threadMutes } from "./tables";

export type NotificationRow = typeof notifications.$inferSelect;

/** Kinds produced so far (spec Part 1 §6, Part 2 §6.2); other features add their own. */
type NotificationKind =
  | "new_follower"
  | "comment_on_post"
  | "reply_to_comment"
  | "mention"
  | "post_reaction"
  | "colony_member_approved"
  | "colony_promoted"
  | "colony_banned"
  | "colony_unbanned"
  | "colony_strike"
  | "ban_appeal_filed"
  | "ban_appeal_resolved"
  | "direct_message"
  | "group_message"
  | (string & {});

export interface NotifyInput {
  userId: string;
  kind: NotificationKind;
  actorId?: string | null;
  target?: { type: string; id: string } | null;
  postId?: string | null;
  commentId?: string | null;
  messageId?: string | null;
  conversationId?: string | null;
  meta?: Record<string, unknown> | null;
  /** The domain event being delivered; a redelivered event never notifies the same user twice. */
  eventId?: string | null;
  /** Deliver even when the recipient is the actor (off by default: nobody is told about their own act). */
  allowSelf?: boolean;
}

/**
 * A fan-out rule's answer: writes each notification (as `notify`) and returns whom it told, for
 * the event's audience.
 */
export function tell(ctx: Ctx, inputs: NotifyInput | NotifyInput[]): Told[] {
  const told: Told[] = [];
  for (const input of Array.isArray(inputs) ? inputs : [inputs]) if (notify(ctx, input)) told.push({ user_id: input.userId, kind: input.kind });
  return told;
}

/**
 * Writes one notification, or returns null when there is nobody to tell: the recipient is the
 * actor, is not an active account, or already has the notification of this event.
 */
export function notify(ctx: Ctx, input: NotifyInput): NotificationRow | null {
  if (!input.allowSelf && input.actorId && input.actorId === input.userId) return null;
  // Someone who blocks the actor is not told of their social acts (money, moderation and security still are).
  if (blocks.suppressedByBlock(ctx, input.userId, input.actorId, input.kind)) return null;
  const recipient = users.findById(ctx, input.userId);
  if (!users.isActive(recipient)) return null;
  const now = ctx.clock.now();
  // One statement prepared per database: the outbox writes a notification for most events.
  const stmt = prepared(ctx.db, "notifications.insert", () =>
    ctx.db.$client.prepare(
      `insert into notifications (id, user_id, kind, actor_id, target_type, target_id, post_id, comment_id, message_id, conversation_id, meta, event_id, is_read, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?) on conflict do nothing returning *`,
    ),
  );
  const raw = stmt.get(
    uuidv7(now),
    input.userId,
    input.kind,
    input.actorId ?? null,
    input.target?.type ?? null,
    input.target?.id ?? null,
    input.postId ?? null,
    input.commentId ?? null,
    input.messageId ?? null,
    input.conversationId ?? null,
    input.meta ? JSON.stringify(input.meta) : null,
    input.eventId ?? null,
    now,
  ) as Record<string, unknown> | null;
  return raw ? mapNotification(raw) : null;
}

const mapNotification = rowMapper<NotificationRow>(notifications);

/** Whether `userId` already has an unread notification of `kind` from `actorId`. */
/** How many notifications of `kind` the user was given since `since` (epoch ms), read or not. */
export function countSince(ctx: Ctx, userId: string, kind: NotificationKind, since: number): number {
  return ctx.db
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.userId, userId), gte(notifications.createdAt, since), eq(notifications.kind, kind)))
    .get()!.n;
}

export function hasUnreadFrom(ctx: Ctx, userId: string, kind: NotificationKind, actorId: string): boolean {
  return !!ctx.db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.isRead, false), eq(notifications.kind, kind), eq(notifications.actorId, actorId)))
    .limit(1)
    .get();
}

// ---------------------------------------------------------------------------------------------
// Reading

interface ListFilter {
  /** Only unread rows (false or absent: no filter). */
  unreadOnly?: boolean;
  /** Rows with exactly this read state. */
  isRead?: boolean;
}

/**
 * The read-state filter of GET /notifications: `is_read` filters in both directions,
 * `unread_only=true` means is_read=false, and the two contradicting each other is a 400.
 */
function readFilter(f: ListFilter): boolean | undefined {
  if (f.unreadOnly === true && f.isRead === true) {
    throw new ApiError(400, "INVALID_INPUT", "unread_only=true and is_read=true contradict each other; send one of them");
  }
  if (f.isRead !== undefined) return f.isRead;
  return f.unreadOnly === true ? false : undefined;
}

const ownedBy = (userId: string, isRead?: boolean) =>
  isRead === undefined ? eq(notifications.userId, userId) : and(eq(notifications.userId, userId), eq(notifications.isRead, isRead));

/** The caller's notifications, newest first, and how many match in all. */
export function listNotifications(ctx: Ctx, userId: string, filter: ListFilter, page: Page): { items: NotificationRow[]; total: number } {
  const isRead = readFilter(filter);
  const where = ownedBy(userId, isRead);
  const items = ctx.db
    .select()
    .from(notifications)
    .where(where)
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const total = ctx.db.select({ n: count() }).from(notifications).where(where).get()?.n ?? 0;
  return { items, total };
}

/** Unread notifications of a user (direct messages are counted elsewhere). */
export function unreadCount(ctx: Ctx, userId: string): number {
  // Every signed-in page shows it: prepared once.
  const stmt = prepared(ctx.db, "notifications.unreadCount", () =>
    ctx.db
      .select({ n: count() })
      .from(notifications)
      .where(and(eq(notifications.userId, sql.placeholder("user")), eq(notifications.isRead, false)))
      .prepare(),
  );
  return stmt.get({ user: userId })?.n ?? 0;
}

/**
 * Tells the user's open web pages their unread count (`notifications.unread` on the web's live
 * stream, docs/decisions.md §170), from the live handlers (handlers.ts): after an event told them
 * something and after they read or deleted some (notifications_changed). Nothing is counted when
 * no page of theirs listens in this process.
 */
export function publishUnread(ctx: Ctx, userId: string, known?: number): void {
  const key = webKey(userId);
  if (ctx.realtime.subscribers(key) === 0) return;
  ctx.realtime.publish(key, notificationsChannel(userId), "notifications.unread", { unread: known ?? unreadCount(ctx, userId) });
}

// ---------------------------------------------------------------------------------------------
// Marking read and deleting

const notFound = () => new ApiError(404, "NOT_FOUND", "Notification not found");

/**
 * Inside the write's transaction: the notifications_changed event, whose live handler
 * (handlers.ts) pushes the user's unread count to their open pages in every serving process.
 * `unread` when the write counted it already.
 */
function emitChanged(ctx: Ctx, tx: Db, userId: string, unread?: number, one?: string): void {
  ctx.events.emit(tx, {
    type: "notifications_changed",
    actorId: userId,
    ...(one ? { subject: { type: "notification", id: one } } : {}),
    payload: unread === undefined ? { user_id: userId } : { user_id: userId, unread },
  });
}

/** Marks one of the caller's notifications read; an unknown or foreign id is 404 NOT_FOUND. */
export function markRead(ctx: Ctx, userId: string, id: string): void {
  inTransaction(ctx.db, (tx) => {
    const row = tx
      .update(notifications)
      .set({ isRead: true })
      .where(and(eq(notifications.id, id.toLowerCase()), eq(notifications.userId, userId)))
      .returning({ id: notifications.id })
      .get();
    if (!row) throw notFound();
    emitChanged(ctx, tx, userId, undefined, row.id);
  });
}

/** Marks every unread notification of the caller read; returns how many changed. */
export function markAllRead(ctx: Ctx, userId: string): number {
  return inTransaction(ctx.db, (tx) => {
    const n = changes(tx.update(notifications).set({ isRead: true }).where(ownedBy(userId, false)).run());
    // Every unread notification is read now: the count is 0.
    if (n) emitChanged(ctx, tx, userId, 0);
    return n;
  });
}

const normalisedIds = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

/** Marks the caller's notifications among `ids` read (others are ignored); returns the unread count. */
export function markReadBatch(ctx: Ctx, userId: string, ids: readonly string[]): number {
  const list = normalisedIds(ids);
  return inTransaction(ctx.db, (tx) => {
    const n = list.length ? changes(tx.update(notifications).set({ isRead: true }).where(and(ownedBy(userId, false), inArray(notifications.id, list))).run()) : 0;
    const unread = unreadCount(ctx, userId);
    if (n) emitChanged(ctx, tx, userId, unread);
    return unread;
  });
}

/** Deletes one of the caller's notifications; unknown and foreign ids are left alone silently. */
export function deleteOne(ctx: Ctx, userId: string, id: string): void {
  inTransaction(ctx.db, (tx) => {
    const gone = tx
      .delete(notifications)
      .where(and(eq(notifications.id, id.toLowerCase()), eq(notifications.userId, userId)))
      .returning({ id: notifications.id })
      .get();
    if (gone) emitChanged(ctx, tx, userId, undefined, gone.id);
  });
}

/** Deletes the caller's notifications among `ids` (others are ignored); returns the unread count. */
export function deleteBatch(ctx: Ctx, userId: string, ids: readonly string[]): number {
  const list = normalisedIds(ids);
  return inTransaction(ctx.db, (tx) => {
    const n = list.length ? changes(tx.delete(notifications).where(and(eq(notifications.userId, userId), inArray(notifications.id, list))).run()) : 0;
    const unread = unreadCount(ctx, userId);
    if (n) emitChanged(ctx, tx, userId, unread);
    return unread;
  });
}

/** Deletes every notification the caller has already read; returns how many. */
export function deleteRead(ctx: Ctx, userId: string): number {
  return changes(ctx.db.delete(notifications).where(ownedBy(userId, true)).run());
}

// ---------------------------------------------------------------------------------------------
// Muted threads (POST/DELETE /posts/{post_id}/mute is served by the posts feature through these)

/** Mutes comment and reply notifications about a post for a user. Idempotent. */
export function muteThread(ctx: Ctx, userId: string, postId: string): { already_muted: boolean } {
  const inserted = ctx.db
    .insert(threadMutes)
    .values({ userId, postId, createdAt: ctx.clock.now() })
    .onConflictDoNothing()
    .returning({ postId: threadMutes.postId })
    .get();
  return { already_muted: !inserted };
}

/** Lifts a thread mute. Idempotent; `was_muted` says whether there was one. */
export function unmuteThread(ctx: Ctx, userId: string, postId: string): { was_muted: boolean } {
  const n = changes(ctx.db.delete(threadMutes).where(and(eq(threadMutes.userId, userId), eq(threadMutes.postId, postId))).run());
  return { was_muted: n > 0 };
}

export function isThreadMuted(ctx: Ctx, userId: string, postId: string): boolean {
  return !!ctx.db
    .select({ u: threadMutes.userId })
    .from(threadMutes)
    .where(and(eq(threadMutes.userId, userId), eq(threadMutes.postId, postId)))
    .get();
}

/** Removes everything this feature holds for an account being hard-deleted. */
export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.transaction((tx) => {
    tx.delete(notifications).where(eq(notifications.userId, userId)).run();
    tx.delete(threadMutes).where(eq(threadMutes.userId, userId)).run();
  });
}

/** Whether the user has read at least one notification (onboarding). */
export function hasReadAny(ctx: Ctx, userId: string): boolean {
  return !!ctx.db.select({ id: notifications.id }).from(notifications).where(and(eq(notifications.userId, userId), eq(notifications.isRead, true))).limit(1).get();
}

/** The user's notifications in a time window, oldest first (GET /since). */
export function notificationsAfter(ctx: Ctx, userId: string, w: Window, limit: number) {
  return oldestAfter<NotificationRow>(ctx.db, notifications, notifications.createdAt, notifications.id, eq(notifications.userId, userId), w, limit);
}
