// Calendar events (spec Part 3 §4.13): events site-wide or in a colony, RSVPs (going, maybe,
// declined) with a capacity, upcoming and past lists, and the secret keys of the iCalendar feeds
// (feed.ts). Decisions: docs/decisions.md §104-§105.
//
// Who sees what: an event in a colony is visible to whoever may read the colony (a private
// colony's events to its approved members and site admins; a deleted colony's to nobody); others
// get 404. Who may do what: anyone signed in schedules site-wide events; scheduling in a colony
// needs an approved membership (403) in a live, unarchived colony (409) the caller is not banned
// from (403). Its author, a moderator of its colony, or a site admin edits and deletes an event.
import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { DAY, iso, parseInstant } from "../../core/clock";
import { ApiError, conflict, FieldError, forbidden, notFound } from "../../core/errors";
import { hashSecret, isUuid, randomBase62, uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { changes, inTransaction } from "../../db/client";
import type { Caller } from "../auth/caller";
import * as colonies from "../colonies/service";
import { renderBody } from "../posts/body";
import * as users from "../users/service";
import { calendarEvents, calendarFeedKeys, calendarRsvps, type RsvpStatus } from "./tables";

export type EventRow = typeof calendarEvents.$inferSelect;
export type RsvpRow = typeof calendarRsvps.$inferSelect;

export const TITLE_MAX = 300;
export const DESCRIPTION_MAX = 10_000;
export const LOCATION_MAX = 500;
export const MAX_ATTENDEES_MAX = 1_000_000;

/** The caller as the colonies service sees it (null: anonymous). */
type Viewer = Caller | null;

// ---------------------------------------------------------------------------------------------
// Visibility and authority

/** The event's colony when the viewer may read it (null for a site-wide event); false when not. */
function readableColony(ctx: Ctx, viewer: Viewer, event: EventRow): colonies.ColonyRow | null | false {
  if (event.colonyId === null) return null;
  const colony = colonies.findColony(ctx, event.colonyId);
  return colony && colonies.canRead(ctx, colony, viewer) ? colony : false;
}

function findEvent(ctx: Ctx, id: string): EventRow | null {
  if (!isUuid(id)) return null;
  return ctx.db.select().from(calendarEvents).where(eq(calendarEvents.id, id.toLowerCase())).get() ?? null;
}

/** An event the viewer may see, with its colony; else 404 NOT_FOUND. */
export function getVisibleEvent(ctx: Ctx, viewer: Viewer, id: string): { event: EventRow; colony: colonies.ColonyRow | null } {
  const event = findEvent(ctx, id);
  const colony = event ? readableColony(ctx, viewer, event) : false;
  if (!event || colony === false) throw notFound("Event not found");
  return { event, colony };
}

/** Author, a moderator of the event's colony, or a site admin; else 403 FORBIDDEN. */
function assertCanManage(ctx: Ctx, caller: Caller, event: EventRow, colony: colonies.ColonyRow | null): void {
  if (event.authorId === caller.id || caller.isAdmin) return;
  if (colony && colonies.canModerate(ctx, colony, caller)) return;
  throw forbidden(colony ? "Only the event's author or a moderator of its colony can change it" : "Only the event's author can change it");
}

/** The colony a caller schedules an event in: 404 unknown or unreadable, 409 archived, 403 banned or not a member. */
function colonyToScheduleIn(ctx: Ctx, caller: Caller, colonyId: string): colonies.ColonyRow {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  if (colony.archivedAt !== null) throw conflict("This colony is archived and accepts no new events");
  if (caller.isAdmin) return colony;
  if (colonies.activeBan(ctx, colony.id, caller.id)) throw forbidden("You are banned from this colony");
  const m = colonies.membershipOf(ctx, colony.id, caller.id);
  if (!m) throw forbidden("Only members of this colony can schedule its events: join it first");
  if (!m.approved) throw forbidden("Your membership of this colony is awaiting moderator approval");
  return colony;
}

// ---------------------------------------------------------------------------------------------
// Input

interface EventFields {
  title?: string | null;
  description?: string | null;
  colony_id?: string | null;
  starts_at?: string | null;
  ends_at?: string | null;
  location?: string | null;
  is_virtual?: boolean | null;
  max_attendees?: number | null;
}

function instant(field: string, raw: string): number {
  const t = parseInstant(raw);
  if (t === null) throw new FieldError(["body", field], "Input should be a valid datetime (ISO 8601, UTC when no offset is given)", raw, "datetime_parsing");
  return t;
}

function text(field: string, raw: string, max: number, required: boolean): string | null {
  const v = raw.trim();
  if (!v) {
    if (required) throw new FieldError(["body", field], "String should have at least 1 character (after surrounding spaces are removed)", raw, "string_too_short");
    return null;
  }
  if (v.length > max) throw new FieldError(["body", field], `String should have at most ${max} characters`, raw, "string_too_long");
  return v;
}

function rendered(ctx: Ctx, authorId: string, description: string | null): string | null {
  if (!description) return null;
  return renderBody(ctx, authorId, description).html;
}

function checkSpan(startsAt: number, endsAt: number | null): void {
  if (endsAt !== null && endsAt <= startsAt) throw new FieldError(["body", "ends_at"], "ends_at must be after starts_at", iso(endsAt), "value_error");
}

// ---------------------------------------------------------------------------------------------
// Events

interface NewEvent extends EventFields {
  title: string;
  starts_at: string;
}

export function createEvent(ctx: Ctx, caller: Caller, input: NewEvent): EventRow {
  const title = text("title", input.title, TITLE_MAX, true)!;
  const description = input.description == null ? null : text("description", input.description, DESCRIPTION_MAX, false);
  const location = input.location == null ? null : text("location", input.location, LOCATION_MAX, false);
  const startsAt = instant("starts_at", input.starts_at);
  const endsAt = input.ends_at == null ? null : instant("ends_at", input.ends_at);
  checkSpan(startsAt, endsAt);
  const colony = input.colony_id == null ? null : colonyToScheduleIn(ctx, caller, input.colony_id);
  const now = ctx.clock.now();
  return ctx.db
    .insert(calendarEvents)
    .values({
      id: uuidv7(now),
      authorId: caller.id,
      colonyId: colony?.id ?? null,
      title,
      description,
      descriptionHtml: rendered(ctx, caller.id, description),
      startsAt,
      endsAt,
      lastsUntil: endsAt ?? startsAt,
      location,
      isVirtual: input.is_virtual ?? true,
      maxAttendees: input.max_attendees ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
}

/**
 * Changes the fields present in `input` (docs/decisions.md §104): null clears description,
 * ends_at, location, max_attendees and colony_id; title, starts_at and is_virtual cannot be
 * cleared, so null there changes nothing. Moving the event to another colony needs the same
 * membership as scheduling it there.
 */
export function updateEvent(ctx: Ctx, caller: Caller, id: string, input: EventFields): EventRow {
  const { event, colony } = getVisibleEvent(ctx, caller, id);
  assertCanManage(ctx, caller, event, colony);
  const set: Partial<EventRow> = {};
  if (input.title != null) set.title = text("title", input.title, TITLE_MAX, true)!;
  if (input.description !== undefined) {
    set.description = input.description === null ? null : text("description", input.description, DESCRIPTION_MAX, false);
    set.descriptionHtml = rendered(ctx, event.authorId, set.description);
  }
  if (input.location !== undefined) set.location = input.location === null ? null : text("location", input.location, LOCATION_MAX, false);
  if (input.starts_at != null) set.startsAt = instant("starts_at", input.starts_at);
  if (input.ends_at !== undefined) set.endsAt = input.ends_at === null ? null : instant("ends_at", input.ends_at);
  if (input.is_virtual != null) set.isVirtual = input.is_virtual;
  if (input.max_attendees !== undefined) set.maxAttendees = input.max_attendees;
  if (input.colony_id !== undefined) {
    const target = input.colony_id === null ? null : input.colony_id.toLowerCase();
    if (target !== event.colonyId) set.colonyId = target === null ? null : colonyToScheduleIn(ctx, caller, target).id;
  }
  const startsAt = set.startsAt ?? event.startsAt;
  const endsAt = set.endsAt !== undefined ? set.endsAt : event.endsAt;
  checkSpan(startsAt, endsAt);
  set.lastsUntil = endsAt ?? startsAt;
  set.updatedAt = ctx.clock.now();
  return ctx.db
    .update(calendarEvents)
    .set({ ...set, sequence: sql`${calendarEvents.sequence} + 1` })
    .where(eq(calendarEvents.id, event.id))
    .returning()
    .get()!;
}

/** Deletes an event and, with it, its RSVPs. */
export function deleteEvent(ctx: Ctx, caller: Caller, id: string): void {
  const { event, colony } = getVisibleEvent(ctx, caller, id);
  assertCanManage(ctx, caller, event, colony);
  ctx.db.delete(calendarEvents).where(eq(calendarEvents.id, event.id)).run();
}

interface ListFilters {
  past?: boolean;
  colony_id?: string;
}

/** Upcoming events (not over yet) soonest first, or past ones most recent first, that the viewer may see. */
export function listEvents(ctx: Ctx, viewer: Viewer, f: ListFilters, page: Page): { items: EventRow[]; total: number } {
  const now = ctx.clock.now();
  const conds: (SQL | undefined)[] = [f.past ? lt(calendarEvents.lastsUntil, now) : gte(calendarEvents.lastsUntil, now)];
  const colonyRef = f.colony_id?.trim();
  if (colonyRef) {
    const colony = isUuid(colonyRef) ? colonies.findColony(ctx, colonyRef) : null;
    // A colony that does not exist, or that the viewer may not read, simply matches nothing.
    if (!colony || !colonies.canRead(ctx, colony, viewer)) return { items: [], total: 0 };
    conds.push(eq(calendarEvents.colonyId, colony.id));
  } else conds.push(colonies.readableColonyFilter(ctx, viewer, calendarEvents.colonyId));
  const where = and(...conds);
  const order = f.past ? [desc(calendarEvents.startsAt), desc(calendarEvents.id)] : [asc(calendarEvents.startsAt), asc(calendarEvents.id)];
  const items = ctx.db.select().from(calendarEvents).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(calendarEvents).where(where).get()!.n;
  return { items, total };
}

/** What the iCalendar feeds hold (docs/decisions.md §105): events not over for more than a year. */
const FEED_PAST_MS = 365 * DAY;
const FEED_MAX_EVENTS = 2000;

/** Events of a feed: visible to the viewer, in one colony or all, ended at most a year ago; the 2,000 latest, by start. */
export function feedEvents(ctx: Ctx, viewer: Viewer, colony: colonies.ColonyRow | null): EventRow[] {
  const conds: SQL[] = [gte(calendarEvents.lastsUntil, ctx.clock.now() - FEED_PAST_MS)];
  conds.push(colony ? eq(calendarEvents.colonyId, colony.id) : colonies.readableColonyFilter(ctx, viewer, calendarEvents.colonyId));
  const rows = ctx.db
    .select()
    .from(calendarEvents)
    .where(and(...conds))
    .orderBy(desc(calendarEvents.startsAt), desc(calendarEvents.id))
    .limit(FEED_MAX_EVENTS)
    .all();
  return rows.reverse();
}

// ---------------------------------------------------------------------------------------------
// RSVPs

/** The viewer's RSVP status for each of `eventIds` that has one. */
export function rsvpsOf(ctx: Ctx, userId: string, eventIds: readonly string[]): Map<string, RsvpStatus> {
  if (!eventIds.length) return new Map();
  const rows = ctx.db
    .select({ eventId: calendarRsvps.eventId, status: calendarRsvps.status })
    .from(calendarRsvps)
    .where(and(eq(calendarRsvps.userId, userId), inArray(calendarRsvps.eventId, [...eventIds])))
    .all();
  return new Map(rows.map((r) => [r.eventId, r.status]));
}

/** The non-declined RSVPs of an event, first come first. */
export function roster(ctx: Ctx, eventId: string): RsvpRow[] {
  return ctx.db
    .select()
    .from(calendarRsvps)
    .where(and(eq(calendarRsvps.eventId, eventId), inArray(calendarRsvps.status, ["going", "maybe"])))
    .orderBy(asc(calendarRsvps.createdAt), asc(calendarRsvps.id))
    .all();
}

const counterOf = (s: RsvpStatus) => (s === "going" ? calendarEvents.goingCount : s === "maybe" ? calendarEvents.maybeCount : null);

/** Moves the event's count of `status` by `delta`; a move into going respects max_attendees (false: full). */
function shift(ctx: Ctx, eventId: string, status: RsvpStatus, delta: 1 | -1): boolean {
  const column = counterOf(status);
  if (!column) return true;
  const full = delta > 0 && status === "going" ? sql` and (${calendarEvents.maxAttendees} is null or ${calendarEvents.goingCount} < ${calendarEvents.maxAttendees})` : sql``;
  return changes(ctx.db.run(sql`update ${calendarEvents} set ${sql.identifier(column.name)} = max(0, ${column} + ${delta}) where ${calendarEvents.id} = ${eventId}${full}`)) > 0;
}

/**
 * Creates or replaces the caller's RSVP (`created` tells which). Going to a full event is 409
 * CONFLICT; maybe and declined are never refused for capacity. The count and the row change in
 * one transaction, the count by a conditional update, so two callers cannot take the last place.
 */
export function rsvp(ctx: Ctx, caller: Caller, eventId: string, status: RsvpStatus): { row: RsvpRow; created: boolean } {
  const { event, colony } = getVisibleEvent(ctx, caller, eventId);
  const now = ctx.clock.now();
  if (event.lastsUntil < now) throw conflict("This event is over: RSVPs are closed");
  if (colony && !caller.isAdmin && colonies.activeBan(ctx, colony.id, caller.id)) throw forbidden("You are banned from this event's colony");
  return inTransaction(ctx.db, () => {
    const existing = ctx.db.select().from(calendarRsvps).where(and(eq(calendarRsvps.eventId, event.id), eq(calendarRsvps.userId, caller.id))).get();
    if (existing?.status === status) return { row: existing, created: false };
    if (!shift(ctx, event.id, status, 1)) throw new ApiError(409, "CONFLICT", `This event is full: ${event.maxAttendees} going`);
    if (existing) {
      shift(ctx, event.id, existing.status, -1);
      const row = ctx.db.update(calendarRsvps).set({ status, updatedAt: now }).where(and(eq(calendarRsvps.eventId, event.id), eq(calendarRsvps.userId, caller.id))).returning().get()!;
      return { row, created: false };
    }
    const row = ctx.db.insert(calendarRsvps).values({ id: uuidv7(now), eventId: event.id, userId: caller.id, status, createdAt: now, updatedAt: now }).returning().get();
    return { row, created: true };
  });
}

/** Removes the caller's RSVP entirely; 404 NOT_FOUND when there is none. */
export function removeRsvp(ctx: Ctx, caller: Caller, eventId: string): void {
  const { event } = getVisibleEvent(ctx, caller, eventId);
  inTransaction(ctx.db, () => {
    const gone = ctx.db.delete(calendarRsvps).where(and(eq(calendarRsvps.eventId, event.id), eq(calendarRsvps.userId, caller.id))).returning().get();
    if (!gone) throw notFound("You have no RSVP on this event");
    shift(ctx, event.id, gone.status, -1);
  });
}

// ---------------------------------------------------------------------------------------------
// Feed keys (docs/decisions.md §105)

const FEED_KEY_PREFIX = "colcal_";

/** A new secret key for the caller's feed addresses; the previous one stops working. Shown once. */
export function issueFeedKey(ctx: Ctx, caller: Caller): { key: string; createdAt: number } {
  const key = FEED_KEY_PREFIX + randomBase62(40);
  const now = ctx.clock.now();
  ctx.db
    .insert(calendarFeedKeys)
    .values({ userId: caller.id, keyHash: hashSecret(key), createdAt: now })
    .onConflictDoUpdate({ target: calendarFeedKeys.userId, set: { keyHash: hashSecret(key), createdAt: now } })
    .run();
  return { key, createdAt: now };
}

/** Retires the caller's feed key; 404 NOT_FOUND when there is none. */
export function revokeFeedKey(ctx: Ctx, caller: Caller): void {
  const gone = changes(ctx.db.delete(calendarFeedKeys).where(eq(calendarFeedKeys.userId, caller.id)).run());
  if (!gone) throw notFound("You have no calendar feed key");
}

/** The active account a feed key belongs to, or null (unknown or retired key, account gone). */
export function feedKeyOwner(ctx: Ctx, key: string): users.UserRow | null {
  if (!key.startsWith(FEED_KEY_PREFIX)) return null;
  const row = ctx.db.select({ userId: calendarFeedKeys.userId }).from(calendarFeedKeys).where(eq(calendarFeedKeys.keyHash, hashSecret(key))).get();
  const user = row ? users.findById(ctx, row.userId) : null;
  return users.isActive(user) ? user : null;
}

// ---------------------------------------------------------------------------------------------
// Accounts

/** A deleted account's events (their RSVPs go with them), RSVPs and feed key (account_deleted, after commit). */
export function purgeUser(ctx: Ctx, userId: string): void {
  inTransaction(ctx.db, () => {
    ctx.db.delete(calendarEvents).where(eq(calendarEvents.authorId, userId)).run();
    const rsvps = ctx.db.delete(calendarRsvps).where(eq(calendarRsvps.userId, userId)).returning().all();
    for (const r of rsvps) shift(ctx, r.eventId, r.status, -1);
    ctx.db.delete(calendarFeedKeys).where(eq(calendarFeedKeys.userId, userId)).run();
  });
}
