import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * One row per notification, written by the event handlers in handlers.ts after the write that
 * caused it has committed (never inline in a request). Deleting a notification is permanent.
 */
export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    /** The recipient. */
    userId: text("user_id").notNull(),
    /** new_follower, comment_on_post, reply_to_comment, mention, post_reaction, … */
    kind: text("kind").notNull(),
    /** Whoever acted; null for system notifications. */
    actorId: text("actor_id"),
    targetType: text("target_type"),
    targetId: text("target_id"),
    postId: text("post_id"),
    commentId: text("comment_id"),
    messageId: text("message_id"),
    conversationId: text("conversation_id"),
    /** Kind-specific facts (emoji of a reaction, parent comment of a reply, colony of an approval …). */
    meta: text("meta", { mode: "json" }).$type<Record<string, unknown>>(),
    /** The domain event this notification was made from: one notification per recipient per event. */
    eventId: text("event_id"),
    isRead: integer("is_read", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // GET /notifications (newest first) and future "since" reads.
    index("notifications_user_created_idx").on(t.userId, t.createdAt, t.id),
    // Read/unread filters, the unread count and delete-read.
    index("notifications_user_read_created_idx").on(t.userId, t.isRead, t.createdAt, t.id),
    uniqueIndex("notifications_event_user_idx").on(t.eventId, t.userId),
  ],
);

/** Threads (posts) a user muted: comment and reply notifications about them stop; mentions still arrive. */
export const threadMutes = sqliteTable(
  "thread_mutes",
  {
    userId: text("user_id").notNull(),
    postId: text("post_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.postId] }), index("thread_mutes_post_idx").on(t.postId)],
);
