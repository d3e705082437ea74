/** @jsxImportSource @kitajs/html */
// The calendar on the web (/events…): upcoming events by month (or past ones), one event with
// its RSVPs and the viewer's answer, the form of a new event, and the iCalendar subscription the
// API serves (docs/decisions.md §105): the public feed's address, and a private one with a feed
// key for a signed-in person. The routes (web/event-routes.ts) call the calendar service.
import type { ColonyRow } from "../../features/colonies/service";
import type { EventRow, RsvpRow } from "../../features/calendar/service";
import type { RsvpStatus } from "../../features/calendar/tables";
import type { UserRow } from "../../features/users/service";
import { Hidden } from "../account-layout";
import { colonyHref, Pager, Tabs } from "../components";
import type { Visit } from "../visit";
import { areaPage, escapeHtml, Flash, Person, PostForm, SignInToTakePart, TextArea, TextField, type FlashView } from "./area-parts";

export const eventHref = (id: string) => `/events/${encodeURIComponent(id)}`;

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const monthOf = (ms: number) => {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};

const ANSWERS: Record<RsvpStatus, string> = { going: "Going", maybe: "Maybe", declined: "Not going" };

export interface EventListView {
  items: EventRow[];
  colonies: Map<string, ColonyRow>;
  mine: Map<string, RsvpStatus>;
  past: boolean;
  page: number;
  hasMore: boolean;
  /** The public iCalendar feed's address. */
  feedUrl: string;
  flash: FlashView;
}

/** Where an event is: its location, "Online" for a virtual one without one, or nothing. */
const whereOf = (e: EventRow) => e.location ?? (e.isVirtual ? "Online" : null);

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const hhmm = (d: Date) => d.toISOString().slice(11, 16);
const dayOf = (d: Date) => `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

/**
 * When an event is, in words and in UTC ("Monday 7 December 2026, 18:00 to 20:00 UTC"): a date
 * to plan by, which the site's script leaves as it is (it turns <time datetime> into "in 5 days").
 */
export function whenText(e: Pick<EventRow, "startsAt" | "endsAt">): string {
  const start = new Date(e.startsAt);
  if (e.endsAt === null) return `${dayOf(start)}, ${hhmm(start)} UTC`;
  const end = new Date(e.endsAt);
  const sameDay = dayOf(start) === dayOf(end);
  return sameDay ? `${dayOf(start)}, ${hhmm(start)} to ${hhmm(end)} UTC` : `${dayOf(start)}, ${hhmm(start)} UTC to ${dayOf(end)}, ${hhmm(end)} UTC`;
}

function When({ e }: { e: EventRow }) {
  return <span safe>{whenText(e)}</span>;
}

export function eventListPage(visit: Visit, v: EventListView): string {
  // Upcoming events under the heading of their month, in order.
  const groups: { month: string; items: EventRow[] }[] = [];
  for (const e of v.items) {
    const month = monthOf(e.startsAt);
    const last = groups.at(-1);
    if (last && last.month === month) last.items.push(e);
    else groups.push({ month, items: [e] });
  }
  const base = v.past ? "/events?past=1" : "/events";
  return areaPage(
    visit,
    v.past ? "Past events" : "Events",
    <section class="area events">
      <h1>{v.past ? "Past events" : "Events"}</h1>
      <Tabs
        label="Events"
        items={[
          { href: "/events", text: "Upcoming", current: !v.past },
          { href: "/events?past=1", text: "Past", current: v.past },
          { href: "/capsules", text: "Time capsules", current: false },
        ]}
      />
      <Flash {...v.flash} />
      {visit.caller ? (
        <p>
          <a class="btn" href="/events/new">
            New event
          </a>
        </p>
      ) : (
        <SignInToTakePart next="/events" what="schedule an event or answer one" />
      )}
      {groups.length ? (
        groups.map((g) => (
          <section aria-labelledby={`m-${g.month.replace(" ", "-")}`}>
            <h2 id={`m-${g.month.replace(" ", "-")}`} safe>
              {g.month}
            </h2>
            <ul class="rows">
              {g.items.map((e) => {
                const colony = e.colonyId ? v.colonies.get(e.colonyId) : undefined;
                const mine = v.mine.get(e.id);
                return (
                  <li class="item">
                    <h3>
                      <a href={eventHref(e.id)} safe>
                        {e.title}
                      </a>
                    </h3>
                    <p class="meta">
                      <When e={e} />
                      {whereOf(e) ? <span safe>{` · ${whereOf(e)}`}</span> : ""}
                      {colony ? (
                        <>
                          {" · in "}
                          <a href={colonyHref(colony.name)} safe>
                            {colony.displayName || colony.name}
                          </a>
                        </>
                      ) : (
                        ""
                      )}
                      {escapeHtml(` · ${e.goingCount} going${e.maybeCount ? `, ${e.maybeCount} maybe` : ""}`)}
                      {mine ? <strong>{escapeHtml(` · You: ${ANSWERS[mine].toLowerCase()}`)}</strong> : ""}
                    </p>
                  </li>
                );
              })}
            </ul>
          </section>
        ))
      ) : (
        <p class="empty">{v.past ? "No past events." : "No upcoming events."}</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => `${base}${v.past ? "&" : "?"}page=${n}`} />
      <section aria-labelledby="subscribe-h" class="subscribe">
        <h2 id="subscribe-h">Subscribe in your calendar</h2>
        <p>
          {"Add this address to your calendar app to see the public events there, kept up to date: "}
          <a href={escapeHtml(v.feedUrl)} safe>
            {v.feedUrl}
          </a>
        </p>
        {visit.caller ? (
          <PostForm visit={visit} action="/events/feed-key" label="Get a private address" cls="stack">
            <p class="meta">A private address also holds the events of the private colonies you belong to. It is shown once; asking again replaces it.</p>
          </PostForm>
        ) : (
          ""
        )}
      </section>
    </section>,
  );
}

/** The page after a feed key is made: the private addresses, shown this once. */
export function feedKeyPage(visit: Visit, urls: { feed: string }): string {
  return areaPage(
    visit,
    "Your private calendar address",
    <section class="area events">
      <h1>Your private calendar address</h1>
      <p role="status" class="flash">
        This address is shown once. Add it to your calendar app now; anyone who has it can read the events you can.
      </p>
      <p>
        <label for="feed-url">Private calendar address</label>
        <br />
        <input id="feed-url" type="text" readonly value={escapeHtml(urls.feed)} class="wide" />
      </p>
      <p>
        <a href="/events">Back to the events</a>
      </p>
    </section>,
    { noindex: true },
  );
}

export interface EventFormValues {
  title: string;
  starts_at: string;
  ends_at: string;
  location: string;
  is_virtual: boolean;
  max_attendees: string;
  colony: string;
  description: string;
}

/** The form of a new event, or of an event being changed (`editing`: its page; its colony stays). */
export function newEventPage(visit: Visit, values: EventFormValues, error: string | null = null, editing: { id: string; title: string } | null = null): string {
  const title = editing ? `Change “${editing.title}”` : "New event";
  return areaPage(
    visit,
    title,
    <section class="area events">
      {editing ? (
        <p class="crumbs">
          <a href="/events">Events</a>
          {" › "}
          <a href={eventHref(editing.id)} safe>
            {editing.title}
          </a>
        </p>
      ) : (
        ""
      )}
      <h1 safe>{title}</h1>
      <Flash error={error} />
      <form method="post" action={escapeHtml(editing ? `${eventHref(editing.id)}/edit` : "/events/new")} class="stack">
        <Hidden name="csrf" value={visit.csrf ?? ""} />
        <TextField id="ev-title" name="title" label="Title" value={values.title} required maxlength={300} />
        <TextField id="ev-start" name="starts_at" type="datetime-local" label="Starts (UTC)" value={values.starts_at} required />
        <TextField id="ev-end" name="ends_at" type="datetime-local" label="Ends (UTC, optional)" value={values.ends_at} />
        <TextField id="ev-location" name="location" label="Location (optional)" value={values.location} maxlength={500} />
        <p>
          <label>
            <input type="checkbox" name="is_virtual" value="1" checked={values.is_virtual || undefined} /> It happens online
          </label>
        </p>
        <TextField id="ev-max" name="max_attendees" type="number" min="1" label="At most this many going (optional)" value={values.max_attendees} />
        {editing ? (
          ""
        ) : (
          <TextField id="ev-colony" name="colony" label="Colony (optional)" value={values.colony} maxlength={100} hint="A colony's name, to schedule it there (its members only); empty for the whole site." />
        )}
        <TextArea id="ev-description" name="description" label="Description (optional)" value={values.description} rows={6} maxlength={10000} hint="Markdown." />
        <p>
          <button type="submit">{editing ? "Save the changes" : "Schedule the event"}</button>
        </p>
      </form>
    </section>,
  );
}

export interface EventView {
  event: EventRow;
  colony: ColonyRow | null;
  author: UserRow | undefined;
  roster: { rsvp: RsvpRow; user: UserRow | undefined }[];
  mine: RsvpStatus | null;
  over: boolean;
  /** The colony's iCalendar feed, for an event in a colony. */
  colonyFeedUrl: string | null;
  flash: FlashView;
}

export function eventPage(visit: Visit, v: EventView): string {
  const e = v.event;
  const here = eventHref(e.id);
  const safeDescription = e.descriptionHtml ?? "";
  return areaPage(
    visit,
    e.title,
    <article class="area events">
      <p class="crumbs">
        <a href="/events">Events</a>
      </p>
      <h1 safe>{e.title}</h1>
      <Flash {...v.flash} />
      <dl class="facts">
        <dt>When</dt>
        <dd>
          <When e={e} />
          {v.over ? " (over)" : ""}
        </dd>
        {whereOf(e) ? (
          <>
            <dt>Where</dt>
            <dd safe>{whereOf(e)}</dd>
          </>
        ) : (
          ""
        )}
        {v.colony ? (
          <>
            <dt>Colony</dt>
            <dd>
              <a href={colonyHref(v.colony.name)} safe>
                {v.colony.displayName || v.colony.name}
              </a>
            </dd>
          </>
        ) : (
          ""
        )}
        <dt>Scheduled by</dt>
        <dd>
          <Person user={v.author} />
        </dd>
        <dt>Answers</dt>
        <dd>{escapeHtml(`${e.goingCount} going${e.maxAttendees !== null ? ` of at most ${e.maxAttendees}` : ""}, ${e.maybeCount} maybe`)}</dd>
      </dl>
      {safeDescription ? <div class="body">{safeDescription}</div> : ""}
      <section aria-labelledby="rsvp-h">
        <h2 id="rsvp-h">Will you come?</h2>
        {!visit.caller ? (
          <SignInToTakePart next={here} what="answer" />
        ) : v.over ? (
          <p class="note">This event is over: answers are closed.</p>
        ) : (
          <>
            <p>{v.mine ? <strong>{escapeHtml(`Your answer: ${ANSWERS[v.mine].toLowerCase()}.`)}</strong> : "You have not answered yet."}</p>
            <div class="act">
              {(["going", "maybe", "declined"] as const).map((s) => (
                <PostForm visit={visit} action={`${here}/rsvp`} label={ANSWERS[s]} cls={v.mine === s ? "inline chosen" : "inline"}>
                  <Hidden name="status" value={s} />
                </PostForm>
              ))}
              {v.mine ? <PostForm visit={visit} action={`${here}/rsvp/remove`} label="Withdraw my answer" /> : ""}
            </div>
          </>
        )}
      </section>
      <h2>Who is coming</h2>
      {v.roster.length ? (
        <ul class="chips">
          {v.roster.map((r) => (
            <li>
              <Person user={r.user} />
              {escapeHtml(` (${ANSWERS[r.rsvp.status].toLowerCase()})`)}
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">Nobody has answered yet.</p>
      )}
      {v.colonyFeedUrl ? (
        <p class="meta">
          {"This colony's events in your calendar app: "}
          <a href={escapeHtml(v.colonyFeedUrl)} safe>
            {v.colonyFeedUrl}
          </a>
        </p>
      ) : (
        ""
      )}
      {visit.caller && (visit.caller.id === e.authorId || visit.caller.isAdmin) ? (
        <div class="act">
          <a class="btn" href={`${here}/edit`}>
            Change the event
          </a>
          <PostForm visit={visit} action={`${here}/delete`} label="Delete the event" />
        </div>
      ) : (
        ""
      )}
    </article>,
  );
}
