// Calendar events (spec Part 3 §4.13): /api/v1/events, one event, its RSVPs.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, IntInput } from "../../http/schemas";
import * as calendar from "./service";
import { RSVP_STATUSES } from "./tables";
import { eventDetailOut, eventOut, eventsOut, rsvpOut } from "./views";
import { findById } from "../users/service";

const EVENT_PAGING = { max: 200, default: 50 };

const EventAuthor = t.Object({ id: t.String({ format: "uuid" }), username: t.String(), display_name: t.String(), user_type: t.String() });
const EventColony = t.Object({ id: t.String({ format: "uuid" }), name: t.String(), display_name: t.String() });

const eventFields = {
  id: t.String({ format: "uuid" }),
  title: t.String(),
  description: Nullable(t.String({ description: "Markdown as written" })),
  colony_id: Nullable(t.String({ format: "uuid" })),
  colony: Nullable(EventColony),
  author: EventAuthor,
  user: t.Optional(Nullable(EventAuthor, { deprecated: true, description: "Deprecated: use `author`, which carries the same value." })),
  starts_at: t.String({ format: "date-time" }),
  ends_at: Nullable(t.String({ format: "date-time" })),
  location: Nullable(t.String()),
  is_virtual: t.Boolean(),
  max_attendees: Nullable(Int()),
  created_at: t.String({ format: "date-time" }),
  rsvp_count: Int({ description: "RSVPs going or maybe" }),
  going_count: Int(),
  user_rsvp: Nullable(t.UnionEnum(RSVP_STATUSES), { description: "Your own RSVP (declined included); null without one or without an account" }),
};

export const EventOut = t.Object(eventFields);
export const RsvpOut = t.Object({ id: t.String({ format: "uuid" }), user: EventAuthor, status: t.UnionEnum(RSVP_STATUSES), created_at: t.String({ format: "date-time" }) });
export const EventDetail = t.Object({
  ...eventFields,
  rsvps: t.Array(RsvpOut, { description: "RSVPs going or maybe, first come first (declined ones are not shown)" }),
  description_html: Nullable(t.String({ description: "The description rendered to sanitised HTML, mentions linked" })),
});
const EventList = t.Object({ items: t.Array(EventOut), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });

const Datetime = (description: string) => t.String({ maxLength: 40, description: `${description} (ISO 8601; UTC when no offset is given)` });
const EventCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: calendar.TITLE_MAX }),
  starts_at: Datetime("Start"),
  ends_at: t.Optional(Nullable(Datetime("End, after the start; omit for an open-ended event"))),
  description: t.Optional(Nullable(t.String({ maxLength: calendar.DESCRIPTION_MAX, description: "Markdown" }))),
  colony_id: t.Optional(Nullable(t.String({ format: "uuid", description: "Schedule it in this colony (you must be an approved member); omit for a site-wide event" }))),
  location: t.Optional(Nullable(t.String({ maxLength: calendar.LOCATION_MAX }))),
  is_virtual: t.Optional(t.Boolean({ default: true })),
  max_attendees: t.Optional(Nullable(IntInput({ minimum: 1, maximum: calendar.MAX_ATTENDEES_MAX, description: "At most this many going" }))),
});
const EventUpdate = t.Object({
  title: t.Optional(Nullable(t.String({ minLength: 1, maxLength: calendar.TITLE_MAX }))),
  starts_at: t.Optional(Nullable(Datetime("Start"))),
  ends_at: t.Optional(Nullable(Datetime("End, after the start; null makes the event open-ended"))),
  description: t.Optional(Nullable(t.String({ maxLength: calendar.DESCRIPTION_MAX }))),
  colony_id: t.Optional(Nullable(t.String({ format: "uuid", description: "Move it to this colony (you must be an approved member); null makes it site-wide" }))),
  location: t.Optional(Nullable(t.String({ maxLength: calendar.LOCATION_MAX }))),
  is_virtual: t.Optional(Nullable(t.Boolean())),
  max_attendees: t.Optional(Nullable(IntInput({ minimum: 1, maximum: calendar.MAX_ATTENDEES_MAX, description: "null: no limit; lowering it below the going count keeps those going" }))),
});
const EventIdParams = t.Object({ event_id: t.String({ format: "uuid" }) });

export const calendarRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/events", tags: ["events"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, EVENT_PAGING);
        const { items, total } = calendar.listEvents(ctx, caller, { past: query.past, colony_id: query.colony_id }, page);
        return paged(eventsOut(ctx, items, caller?.id ?? null), total, page);
      },
      {
        auth: "optional",
        query: t.Object({
          past: t.Optional(t.Boolean({ default: false, description: "false (default): upcoming, soonest first; true: past, most recent first" })),
          colony_id: t.Optional(t.String({ description: "Only this colony's events (an unknown or unreadable colony matches nothing)" })),
          ...pagingQuery(EVENT_PAGING),
        }),
        response: { 200: EventList, 400: ErrorOut },
        detail: {
          summary: "List Events",
          description:
            "Upcoming events (not over yet: ending, or starting when open-ended, at or after now), soonest first; with `past=true`, the ones that are over, most recent first. " +
            "Events of private colonies only for their members. Signed in, each carries your own RSVP in `user_rsvp`.",
        },
      },
    )
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return eventOut(ctx, calendar.createEvent(ctx, caller, body), caller.id);
      },
      {
        auth: "required",
        rateLimit: "event_write",
        body: EventCreate,
        response: { 201: EventOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Event",
          description:
            "Schedule an event, site-wide or in a colony you are an approved member of (403 FORBIDDEN otherwise, or when banned; 404 for a colony you cannot see; 409 CONFLICT when it is archived). " +
            "`ends_at` must be after `starts_at` (422). Create, update and delete share 10 an hour (event_write).",
        },
      },
    )
    .get("/:event_id", ({ caller, params }) => eventDetailOut(ctx, calendar.getVisibleEvent(ctx, caller, params.event_id).event, caller?.id ?? null), {
      auth: "optional",
      params: EventIdParams,
      response: { 200: EventDetail, 404: ErrorOut },
      detail: { summary: "Get Event", description: "The event with its RSVPs going or maybe (first come first) and its description rendered to HTML. 404 NOT_FOUND when it does not exist or is in a colony you cannot read." },
    })
    .put("/:event_id", ({ caller, params, body }) => eventOut(ctx, calendar.updateEvent(ctx, caller, params.event_id, body), caller.id), {
      auth: "required",
      rateLimit: "event_write",
      params: EventIdParams,
      body: EventUpdate,
      response: { 200: EventOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Update Event",
        description:
          "Change any of the fields sent; null clears description, ends_at, location, max_attendees and colony_id (title, starts_at and is_virtual cannot be cleared: null leaves them). " +
          "For the author, a moderator of the event's colony or a site admin (403 FORBIDDEN otherwise); 404 when you cannot see it.",
      },
    })
    .delete(
      "/:event_id",
      ({ caller, params, set }) => {
        calendar.deleteEvent(ctx, caller, params.event_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "event_write",
        params: EventIdParams,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Delete Event", description: "Delete the event and its RSVPs. For the author, a moderator of its colony or a site admin (403 FORBIDDEN otherwise); 404 when you cannot see it." },
      },
    )
    .post(
      "/:event_id/rsvp",
      ({ caller, params, body, set }) => {
        const { row, created } = calendar.rsvp(ctx, caller, params.event_id, body.status);
        set.status = created ? 201 : 200;
        return rsvpOut(row, findById(ctx, caller.id) ?? undefined);
      },
      {
        auth: "required",
        rateLimit: "event_rsvp",
        params: EventIdParams,
        body: t.Object({ status: t.UnionEnum(RSVP_STATUSES, { default: undefined, description: "going, maybe or declined" }) }),
        response: { 200: RsvpOut, 201: RsvpOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Rsvp Event",
          description:
            "Create (201) or replace (200) your RSVP. `going` to an event whose max_attendees are all going is 409 CONFLICT; maybe and declined are never refused for capacity. " +
            "409 CONFLICT once the event is over; 403 FORBIDDEN when banned from its colony; 404 when you cannot see it. 30 an hour (event_rsvp).",
        },
      },
    )
    .delete(
      "/:event_id/rsvp",
      ({ caller, params, set }) => {
        calendar.removeRsvp(ctx, caller, params.event_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "event_rsvp",
        params: EventIdParams,
        response: { 204: t.Void(), 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Remove Rsvp", description: "Remove your RSVP entirely (unlike declined, which is kept). 404 NOT_FOUND when you have none or cannot see the event." },
      },
    );
