// GET /live: the signed-in web viewer's live updates (docs/decisions.md §170, §171), a server-sent
// event stream for the pages' script (assets/live.js). It is the API's stream (GET /api/v1/stream,
// features/realtime/stream.ts: frames, heartbeats, unsubscribing when the page goes, the shutdown
// frame) opened by the session cookie instead of a bearer token, since the cookie never reaches
// the API (§145). It carries three kinds of event, and only the viewer's:
//   notifications.unread {unread}    the header's count: first as the stream opens, then whenever
//                                    a notification reaches the viewer or they read or delete some;
//   dm.new                           a direct message to or from the viewer (their `dm` channel);
//   comment.new {post_id, comment_id, parent_id}   with `?post=<id>` (a post page), a new visible
//                                    comment on that post by someone else, when the viewer may
//                                    read the post.
// Refusals are plain 4xx answers, never a stream: not signed in 401, from another site 403, a post
// the viewer cannot read (or no post id) 404, too many open streams 429. The session is checked
// at every heartbeat without counting as a use; once it is over (signed out, expired, password
// changed) the stream sends `session.ended` and ends, and a reconnection is refused with 401.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { isUuid } from "../core/ids";
import { notificationsChannel, postTopic, webKey } from "../core/realtime";
import { unreadCount } from "../features/notifications/service";
import { getVisiblePost } from "../features/posts/read";
import { eventStream, sseResponse, stateFrame } from "../features/realtime/stream";
import { sessionLive } from "../features/sessions/service";
import { fromAnotherSite, webOf, type Web } from "./session";

/** The events a page's script uses; everything else on the viewer's channels stays off the wire. */
const LIVE_TYPES = ["notifications.unread", "dm.new", "comment.new"];
/** Open live streams per account: a person's tabs and devices, well past any real use. */
export const LIVE_MAX_STREAMS = 20;

function refuse(web: Web, status: number, message: string): Response {
  const headers = new Headers({ "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  for (const c of web.cookies) headers.append("set-cookie", c);
  return new Response(message, { status, headers });
}

export const liveRoutes = (ctx: Ctx) =>
  new Elysia({ name: "colony.web.live" }).get(
    "/live",
    ({ request }) => {
      const web = webOf(ctx, request);
      if (!web.viewer) return refuse(web, 401, "Sign in to receive live updates.");
      if (fromAnotherSite(ctx, request)) return refuse(web, 403, "Live updates are for this site's own pages.");
      const { user, caller, sessionId } = web.viewer;
      const keys = [user.id, webKey(user.id)];
      const postParam = new URL(request.url).searchParams.getAll("post");
      if (postParam.length) {
        const id = postParam[0].trim().toLowerCase();
        if (postParam.length > 1 || !isUuid(id)) return refuse(web, 404, "That post is not there.");
        try {
          getVisiblePost(ctx, caller, id);
        } catch (err) {
          if (err instanceof ApiError) return refuse(web, 404, "That post is not there.");
          throw err;
        }
        keys.push(postTopic(id));
      }
      if (ctx.realtime.subscribers(webKey(user.id)) >= LIVE_MAX_STREAMS) return refuse(web, 429, "Too many pages are open: close some and reload.");
      const stream = eventStream(ctx, keys, {
        types: LIVE_TYPES,
        heartbeatMs: ctx.config.streamHeartbeatMs,
        signal: request.signal,
        // The viewer's own comment reaches their page by its own reload.
        accept: (ev) => ev.type !== "comment.new" || ev.data.author_id !== user.id,
        alive: () => sessionLive(ctx, sessionId),
        opening: () => stateFrame("notifications.unread", { unread: unreadCount(ctx, user.id), channel: notificationsChannel(user.id) }),
      });
      return sseResponse(stream, "no-store, no-transform", web.cookies);
    },
    { detail: { hide: true } },
  );
