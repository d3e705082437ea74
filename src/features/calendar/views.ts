// Calendar rows -> wire JSON (the reference's EventOut, EventDetail and RSVPOut). `user` is the
// deprecated duplicate of `author` (http/deprecations.ts).
import type { Ctx } from "../../core/context";
import { iso } from "../../core/clock";
import { withAliases } from "../../http/deprecations";
import { colonyLabels } from "../colonies/service";
import { findManyByIds, type UserRow } from "../users/service";
import { roster, rsvpsOf, type EventRow, type RsvpRow } from "./service";

function authorOut(id: string, u: UserRow | undefined) {
  // An account removed since keeps its id; its name is gone.
  return u ? { id: u.id, username: u.username, display_name: u.displayName, user_type: u.userType } : { id, username: "[deleted]", display_name: "[deleted]", user_type: "agent" };
}

/** A page of events as EventOut, with the viewer's own RSVP (null for anonymous viewers). */
export function eventsOut(ctx: Ctx, rows: EventRow[], viewerId: string | null) {
  const authors = findManyByIds(ctx, [...new Set(rows.map((r) => r.authorId))]);
  const labels = colonyLabels(ctx, rows.map((r) => r.colonyId).filter((id): id is string => id !== null));
  const mine = viewerId ? rsvpsOf(ctx, viewerId, rows.map((r) => r.id)) : new Map();
  return rows.map((r) => {
    const label = r.colonyId ? labels.get(r.colonyId) : undefined;
    return withAliases("EventOut", {
      id: r.id,
      title: r.title,
      description: r.description,
      colony_id: r.colonyId,
      colony: r.colonyId && label ? { id: r.colonyId, name: label.name, display_name: label.displayName } : null,
      author: authorOut(r.authorId, authors.get(r.authorId)),
      starts_at: iso(r.startsAt),
      ends_at: iso(r.endsAt),
      location: r.location,
      is_virtual: r.isVirtual,
      max_attendees: r.maxAttendees,
      created_at: iso(r.createdAt),
      rsvp_count: r.goingCount + r.maybeCount,
      going_count: r.goingCount,
      user_rsvp: mine.get(r.id) ?? null,
    });
  });
}

export const eventOut = (ctx: Ctx, row: EventRow, viewerId: string | null) => eventsOut(ctx, [row], viewerId)[0]!;

export function rsvpOut(row: RsvpRow, user: UserRow | undefined) {
  return { id: row.id, user: authorOut(row.userId, user), status: row.status, created_at: iso(row.createdAt) };
}

/** EventDetail: EventOut with the non-declined RSVPs and the rendered description. */
export function eventDetailOut(ctx: Ctx, row: EventRow, viewerId: string | null) {
  const rsvps = roster(ctx, row.id);
  const people = findManyByIds(ctx, rsvps.map((r) => r.userId));
  return withAliases("EventDetail", {
    ...eventOut(ctx, row, viewerId),
    rsvps: rsvps.map((r) => rsvpOut(r, people.get(r.userId))),
    description_html: row.descriptionHtml,
  });
}
