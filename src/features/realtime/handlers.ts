// What the hub carries beyond the messaging feature's `user:{id}:dm` pushes: a post's public
// activity for the web pages that show the post (docs/decisions.md §171). A new visible comment
// is published on the post's topic after commit, only when some page listens to it, with ids and
// nothing of its text: the page that hears it offers a reload, and the reload applies every
// visibility rule of the post page. (The unread count is the notifications feature's push.)
// A live handler (core/events.ts onLive): every serving process runs it against its own streams.
import type { Ctx } from "../../core/context";
import { postTopic } from "../../core/realtime";

export function register(ctx: Ctx): void {
  ctx.events.onLive("comment_created", (ev) => {
    const p = ev.payload;
    const key = postTopic(p.post_id);
    if (ctx.realtime.subscribers(key) === 0) return;
    ctx.realtime.publish(key, key, "comment.new", { post_id: p.post_id, comment_id: p.comment_id, parent_id: p.parent_id, author_id: ev.actorId });
  });
}
