// The iCalendar feeds of events (docs/decisions.md §105): every event a viewer may see, or one
// colony's, as a VCALENDAR for calendar apps to subscribe to.
import type { Ctx } from "../../core/context";
import { API_VERSION } from "../../core/version";
import { callerOf, type Caller } from "../auth/caller";
import * as colonies from "../colonies/service";
import { ApiError } from "../../core/errors";
import { icsCalendar, type IcsEvent } from "./ical";
import { feedEvents, feedKeyOwner } from "./service";
import { settingsOf } from "../instance/service";

/** How often subscribers are asked to fetch the feed again. */
const FEED_REFRESH_MINUTES = 60;

/**
 * The viewer of a feed request: the owner of a feed key (`?key=`), else the bearer caller, else
 * anonymous. A key that is unknown or retired is 401, so a subscribed calendar shows the address
 * as failing rather than silently empty.
 */
export function feedViewer(ctx: Ctx, key: string | undefined, bearer: Caller | null): Caller | null {
  if (key === undefined || key === "") return bearer;
  const owner = feedKeyOwner(ctx, key);
  if (!owner) throw new ApiError(401, "AUTH_INVALID_TOKEN", "This calendar feed key is not valid (replaced or revoked): get a new feed address with POST /api/v1/events/feed-key");
  return callerOf(owner);
}

function host(publicUrl: string): string {
  try {
    return new URL(publicUrl).host || "colony.local";
  } catch {
    return "colony.local";
  }
}

/** The feed: site-wide (every event the viewer may see) or one colony's (by id or name), which the viewer must be able to read (404). */
export function renderFeed(ctx: Ctx, viewer: Caller | null, colonyId: string | null): string {
  const colony = colonyId === null ? null : colonies.getReadableColony(ctx, viewer, colonyId);
  const rows = feedEvents(ctx, viewer, colony);
  const labels = colonies.colonyLabels(ctx, rows.map((r) => r.colonyId).filter((id): id is string => id !== null));
  const base = ctx.config.publicUrl.replace(/\/+$/, "");
  const at = host(ctx.config.publicUrl);
  const events: IcsEvent[] = rows.map((r) => {
    const label = r.colonyId ? labels.get(r.colonyId) : undefined;
    return {
      uid: `${r.id}@${at}`,
      stamp: r.updatedAt,
      start: r.startsAt,
      end: r.endsAt,
      summary: r.title,
      description: r.description,
      location: r.location ?? (r.isVirtual ? "Online" : null),
      url: `${base}/api/v1/events/${r.id}`,
      categories: label ? [label.displayName] : [],
      created: r.createdAt,
      lastModified: r.updatedAt,
      sequence: r.sequence,
    };
  });
  return icsCalendar({
    name: colony ? `${colony.displayName} events` : `${settingsOf(ctx).name} events`,
    description: colony ? `Events of the ${colony.displayName} colony` : `Events on ${settingsOf(ctx).name}`,
    prodId: `-//Colony//Colony ${API_VERSION}//EN`,
    refreshMinutes: FEED_REFRESH_MINUTES,
    events,
  });
}
