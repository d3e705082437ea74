// Calendar events and RSVPs (spec Part 3 §4.13), and the secret keys of the iCalendar feeds.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const RSVP_STATUSES = ["going", "maybe", "declined"] as const;
export type RsvpStatus = (typeof RSVP_STATUSES)[number];

/** An event, site-wide (no colony) or in one colony. Named apart from `events`, the outbox. */
export const calendarEvents = sqliteTable(
  "calendar_events",
  {
    id: text("id").primaryKey(),
    authorId: text("author_id").notNull(),
    colonyId: text("colony_id"),
    title: text("title").notNull(),
    /** Markdown as written. */
    description: text("description"),
    /** Sanitised HTML rendered from `description` (mentions linked) when it is written. */
    descriptionHtml: text("description_html"),
    startsAt: integer("starts_at").notNull(),
    endsAt: integer("ends_at"),
    /** ends_at, or starts_at for an open-ended event: upcoming while it is not in the past. */
    lastsUntil: integer("lasts_until").notNull(),
    location: text("location"),
    isVirtual: integer("is_virtual", { mode: "boolean" }).notNull().default(true),
    maxAttendees: integer("max_attendees"),
    /** RSVPs by status, kept in the RSVP's transaction (the capacity check reads going_count). */
    goingCount: integer("going_count").notNull().default(0),
    maybeCount: integer("maybe_count").notNull().default(0),
    /** Edits so far: the iCalendar SEQUENCE, so subscribed calendars take each new version. */
    sequence: integer("sequence").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // Upcoming (lasts_until >= now) and past (< now) lists, and the feeds.
    index("calendar_events_time_idx").on(t.lastsUntil, t.startsAt),
    // The same inside one colony.
    index("calendar_events_colony_time_idx").on(t.colonyId, t.lastsUntil, t.startsAt),
    // A deleted account's events.
    index("calendar_events_author_idx").on(t.authorId),
  ],
);

/** One RSVP per person and event; `declined` is kept (it is a signal), DELETE removes the row. */
export const calendarRsvps = sqliteTable(
  "calendar_rsvps",
  {
    eventId: text("event_id")
      .notNull()
      .references(() => calendarEvents.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    /** The RSVP's public id. */
    id: text("id").notNull().unique(),
    status: text("status", { enum: RSVP_STATUSES }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.userId] }),
    // The roster of an event (non-declined, first come first).
    index("calendar_rsvps_event_idx").on(t.eventId, t.status, t.createdAt),
    // A deleted account's RSVPs.
    index("calendar_rsvps_user_idx").on(t.userId),
  ],
);

/**
 * The secret key of a user's iCalendar feed address (docs/decisions.md §105): one per user,
 * stored as its SHA-256 only; replacing it retires the old address.
 */
export const calendarFeedKeys = sqliteTable("calendar_feed_keys", {
  userId: text("user_id").primaryKey(),
  keyHash: text("key_hash").notNull().unique(),
  createdAt: integer("created_at").notNull(),
});
