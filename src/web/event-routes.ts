// The calendar on the web (/events…): upcoming and past events the visitor may see, one event,
// a new one, answering (going, maybe, not going; withdrawing), deleting one's own, and a private
// iCalendar address (a feed key, shown once). Every read and write is the calendar service's,
// as the visitor, charged to the API routes' limits; the service decides who may see and do
// what, and when (answers close when the event is over; a full event refuses going).
import { iso } from "../core/clock";
import type { Ctx } from "../core/context";
import { FieldError } from "../core/errors";
import * as calendar from "../features/calendar/service";
import { RSVP_STATUSES, type RsvpStatus } from "../features/calendar/tables";
import * as colonies from "../features/colonies/service";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, pageOf, readingPage, str, typed } from "./area-kit";
import { eventHref, eventListPage, eventPage, feedKeyPage, newEventPage, type EventFormValues } from "./pages/events";
import { FORM, PAGE } from "./route-options";
import { field, isSignedIn, page, toSignIn, type SignedInWeb } from "./session";
import { charge, subjectOf } from "../http/rate-limit";
import { refusedAction } from "./respond";
import { visitOf, type Visit } from "./visit";
import type { WebArea } from "./web-app";

const PER_PAGE = 50;

const NOTICES: Record<string, string> = {
  created: "The event is scheduled.",
  answered: "Your answer is saved.",
  withdrawn: "Your answer is withdrawn.",
  deleted: "The event is deleted.",
  changed: "The event is changed.",
};

/** The iCalendar feeds the API serves (features/calendar/feed-routes.ts). */
const feedUrl = (ctx: Ctx, colonyId?: string) => `${ctx.config.publicUrl}/api/v1/${colonyId ? `colonies/${colonyId}/` : ""}events.ics`;

/** An optional whole number of the form (max attendees), or a 422 naming the field. */
function optionalCount(raw: string, name: string, max: number): number | null {
  const s = raw.trim();
  if (!s) return null;
  if (!/^\d{1,9}$/.test(s) || Number(s) < 1 || Number(s) > max) throw new FieldError(["body", name], `${name} must be a whole number from 1 to ${max}`);
  return Number(s);
}

export const eventWebRoutes: WebArea = (ctx, app) => {
  function view(visit: Visit, id: string, flash: { notice?: string | null; error?: string | null } = {}): string {
    const { event, colony } = calendar.getVisibleEvent(ctx, visit.caller, idOr404(id));
    const rows = calendar.roster(ctx, event.id);
    const people = users.findManyByIds(ctx, [event.authorId, ...rows.map((r) => r.userId)]);
    return eventPage(visit, {
      event,
      colony,
      author: people.get(event.authorId),
      roster: rows.map((rsvp) => ({ rsvp, user: people.get(rsvp.userId) })),
      mine: visit.caller ? (calendar.rsvpsOf(ctx, visit.caller.id, [event.id]).get(event.id) ?? null) : null,
      over: event.lastsUntil < ctx.clock.now(),
      colonyFeedUrl: colony ? feedUrl(ctx, colony.id) : null,
      flash,
    });
  }

  const values = (w: SignedInWeb): EventFormValues => ({
    title: typed(w, "title", 300),
    starts_at: typed(w, "starts_at", 40),
    ends_at: typed(w, "ends_at", 40),
    location: typed(w, "location", 500),
    is_virtual: w.form.get("is_virtual") === "1",
    max_attendees: typed(w, "max_attendees", 12),
    colony: typed(w, "colony", 100),
    description: typed(w, "description", 10_000),
  });

  const onEvent = (web: Parameters<typeof formAction>[1], request: Request, rawId: string, limits: string[], act: (w: SignedInWeb, id: string) => string) =>
    formAction(
      ctx,
      web,
      request,
      eventHref(rawId),
      limits,
      (w) => act(w, idOr404(rawId)),
      (visit, error) => view(visit, rawId, { error }),
    );

  app
    .get(
      "/events",
      ({ request, query }) =>
        readingPage(ctx, request, (visit) => {
          const past = str(query.past) === "1" || str(query.past) === "true";
          const paging = pageOf(query.page, PER_PAGE);
          const r = calendar.listEvents(ctx, visit.caller, { past }, paging);
          const colonyIds = [...new Set(r.items.map((e) => e.colonyId).filter((c): c is string => c !== null))];
          const cols = new Map<string, colonies.ColonyRow>();
          for (const id of colonyIds) {
            const c = colonies.findColony(ctx, id);
            if (c) cols.set(id, c);
          }
          return eventListPage(visit, {
            items: r.items,
            colonies: cols,
            mine: visit.caller ? calendar.rsvpsOf(ctx, visit.caller.id, r.items.map((e) => e.id)) : new Map(),
            past,
            page: paging.page!,
            hasMore: paging.offset + r.items.length < r.total,
            feedUrl: feedUrl(ctx),
            flash: { notice: noticeOf(NOTICES, query.notice) },
          });
        }),
      PAGE,
    )
    .post(
      "/events/feed-key",
      ({ web, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/events");
        try {
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["event_feed_key"]);
          const { key } = calendar.issueFeedKey(ctx, web.viewer.caller);
          // Shown once, on the answer to the form itself: the key is kept only as its hash.
          return page(web, feedKeyPage(visitOf(ctx, request), { feed: `${feedUrl(ctx)}?key=${key}` }));
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      FORM,
    )
    .get(
      "/events/new",
      ({ web, request }) => {
        if (!web.viewer) return toSignIn(web, "/events/new");
        return readingPage(ctx, request, (visit) => newEventPage(visit, { title: "", starts_at: "", ends_at: "", location: "", is_virtual: true, max_attendees: "", colony: "", description: "" }));
      },
      PAGE,
    )
    .post(
      "/events/new",
      ({ web, request }) =>
        formAction(
          ctx,
          web,
          request,
          "/events/new",
          ["event_write"],
          (w) => {
            const colony = field(w, "colony", 100).trim();
            const e = calendar.createEvent(ctx, w.viewer.caller, {
              title: field(w, "title", calendar.TITLE_MAX),
              starts_at: field(w, "starts_at", 40),
              ends_at: field(w, "ends_at", 40).trim() || null,
              location: field(w, "location", calendar.LOCATION_MAX),
              is_virtual: field(w, "is_virtual", 1) === "1",
              max_attendees: optionalCount(field(w, "max_attendees", 12), "max_attendees", calendar.MAX_ATTENDEES_MAX),
              colony_id: colony || null,
              description: field(w, "description", calendar.DESCRIPTION_MAX),
            });
            return `${eventHref(e.id)}?notice=created`;
          },
          (visit, error) => newEventPage(visit, values(web as SignedInWeb), error),
        ),
      FORM,
    )
    .get("/events/:id", ({ request, params, query }) => readingPage(ctx, request, (visit) => view(visit, params.id, { notice: noticeOf(NOTICES, query.notice) })), PAGE)
    .post(
      "/events/:id/rsvp",
      ({ web, request, params }) =>
        onEvent(web, request, params.id, ["event_rsvp"], (w, id) => {
          const status = field(w, "status", 10);
          if (!(RSVP_STATUSES as readonly string[]).includes(status)) throw new FieldError(["body", "status"], "Answer going, maybe or declined");
          calendar.rsvp(ctx, w.viewer.caller, id, status as RsvpStatus);
          return `${eventHref(id)}?notice=answered#rsvp-h`;
        }),
      FORM,
    )
    .post(
      "/events/:id/rsvp/remove",
      ({ web, request, params }) =>
        onEvent(web, request, params.id, ["event_rsvp"], (w, id) => {
          calendar.removeRsvp(ctx, w.viewer.caller, id);
          return `${eventHref(id)}?notice=withdrawn#rsvp-h`;
        }),
      FORM,
    )
    .get(
      "/events/:id/edit",
      ({ web, request, params }) => {
        if (!web.viewer) return toSignIn(web, `${eventHref(params.id)}/edit`);
        return readingPage(ctx, request, (visit) => {
          const { event: e } = calendar.getVisibleEvent(ctx, visit.caller, idOr404(params.id));
          const local = (ms: number | null) => (ms === null ? "" : iso(ms).slice(0, 16));
          return newEventPage(
            visit,
            { title: e.title, starts_at: local(e.startsAt), ends_at: local(e.endsAt), location: e.location ?? "", is_virtual: e.isVirtual, max_attendees: e.maxAttendees === null ? "" : String(e.maxAttendees), colony: "", description: e.description ?? "" },
            null,
            { id: e.id, title: e.title },
          );
        });
      },
      PAGE,
    )
    .post(
      "/events/:id/edit",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          `${eventHref(params.id)}/edit`,
          ["event_write"],
          (w) => {
            // Every field of the form is sent: an emptied one clears it, as the API's null does.
            const e = calendar.updateEvent(ctx, w.viewer.caller, idOr404(params.id), {
              title: field(w, "title", calendar.TITLE_MAX),
              starts_at: field(w, "starts_at", 40),
              ends_at: field(w, "ends_at", 40).trim() || null,
              location: field(w, "location", calendar.LOCATION_MAX).trim() || null,
              is_virtual: field(w, "is_virtual", 1) === "1",
              max_attendees: optionalCount(field(w, "max_attendees", 12), "max_attendees", calendar.MAX_ATTENDEES_MAX),
              description: field(w, "description", calendar.DESCRIPTION_MAX).trim() || null,
            });
            return `${eventHref(e.id)}?notice=changed`;
          },
          (visit, error) => {
            const { event: e } = calendar.getVisibleEvent(ctx, visit.caller, idOr404(params.id));
            return newEventPage(visit, values(web as SignedInWeb), error, { id: e.id, title: e.title });
          },
        ),
      FORM,
    )
    .post(
      "/events/:id/delete",
      ({ web, request, params }) =>
        onEvent(web, request, params.id, ["event_write"], (w, id) => {
          calendar.deleteEvent(ctx, w.viewer.caller, id);
          return "/events?notice=deleted";
        }),
      FORM,
    );
};
