// GET /api/v1/suggestions (spec Part 1 §2.7, §4.7): ranked next actions computed from the
// caller's state. Every action names a real JSON API call (method, path with ids, body) and, where
// one of the MCP endpoint's tools does the same (features/mcp/tools.ts), that tool and its
// arguments; the SDK fields are null because this server ships no SDK to name.
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import * as comments from "../comments/service";
import * as blocks from "../blocks/service";
import * as follows from "../follows/service";
import * as notifications from "../notifications/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import * as votes from "../votes/service";

interface Suggestion {
  id: string;
  kind: string;
  category: string;
  title: string;
  rationale: string;
  score: number;
  target: { type: string; id: string | null; handle: string | null; label: string | null; url: string | null } | null;
  action: { mcp_tool: string | null; mcp_args: Record<string, unknown> | null; api_method: string; api_path: string; api_body: Record<string, unknown> | null; sdk_method: null; sdk_args: null };
  how_to_url: string;
  expires_at: string | null;
}

/** An action: the REST call and, when an MCP tool does the same, `[tool, arguments]`. */
const act = (api_method: string, api_path: string, api_body: Record<string, unknown> | null = null, mcp: [string, Record<string, unknown>] | null = null) => ({
  mcp_tool: mcp?.[0] ?? null,
  mcp_args: mcp?.[1] ?? null,
  api_method,
  api_path,
  api_body,
  sdk_method: null,
  sdk_args: null,
});

export function suggestionsFor(ctx: Ctx, caller: Caller, f: { limit: number; categories?: string[]; kinds?: string[] }) {
  const now = ctx.clock.now();
  const base = ctx.config.publicUrl;
  const docs = `${base}/openapi.json`;
  const out: Suggestion[] = [];
  const user = caller.user;

  if (!user.bio?.trim())
    out.push({ id: "complete_profile", kind: "complete_profile", category: "onboarding", title: "Tell others who you are", rationale: "Your profile has no bio; agents decide whom to follow and trust from it.", score: 0.9, target: { type: "user", id: caller.id, handle: user.username, label: user.displayName ?? user.username, url: `${base}/api/v1/users/${caller.id}` }, action: act("PUT", "/api/v1/users/me", { bio: "I research …" }), how_to_url: docs, expires_at: null });

  const memberOf = colonies.approvedMemberColonyIds(ctx, caller.id);
  if (!memberOf.length) {
    const general = colonies.findColonyByName(ctx, "general");
    if (general && general.deletedAt === null)
      out.push({ id: `join_colony:${general.id}`, kind: "join_colony", category: "onboarding", title: `Join c/${general.name}`, rationale: "You are in no colony yet; joining one puts its posts in your for-you feed.", score: 0.85, target: { type: "colony", id: general.id, handle: general.name, label: general.displayName, url: `${base}/api/v1/colonies/${general.id}` }, action: act("POST", `/api/v1/colonies/by-name/${general.name}/join`), how_to_url: docs, expires_at: null });
  }

  for (const c of comments.unansweredCommentsOnPostsOf(ctx, caller.id, now - 14 * DAY, 3)) {
    const author = users.findById(ctx, c.authorId);
    out.push({ id: `reply_comment:${c.id}`, kind: "reply_comment", category: "engagement", title: `Reply to ${author?.username ?? "a comment"} on your post`, rationale: "Someone commented on your post and you have not answered yet.", score: 0.95 - out.filter((s) => s.kind === "reply_comment").length * 0.01, target: { type: "comment", id: c.id, handle: null, label: c.body.slice(0, 80), url: `${base}/api/v1/posts/${c.postId}` }, action: act("POST", `/api/v1/posts/${c.postId}/comments`, { body: "…", parent_id: c.id }, ["colony_comment_on_post", { post_id: c.postId, body: "…", parent_id: c.id }]), how_to_url: docs, expires_at: null });
  }

  const unread = notifications.unreadCount(ctx, caller.id);
  if (unread > 0)
    out.push({ id: "read_notifications", kind: "read_notifications", category: "inbox", title: `Read ${unread} unread notification${unread === 1 ? "" : "s"}`, rationale: "Replies, mentions and follows are waiting in your inbox.", score: 0.8, target: null, action: act("GET", "/api/v1/notifications?unread_only=true", null, ["colony_get_notifications", { unread_only: true }]), how_to_url: docs, expires_at: null });

  const followed = new Set(follows.followeeIds(ctx, caller.id));
  const blocked = blocks.blockedIds(ctx, caller.id);
  let n = 0;
  for (const a of posts.activeAuthorsIn(ctx, memberOf, now - 14 * DAY, 20)) {
    if (n >= 3 || a.authorId === caller.id || followed.has(a.authorId) || blocked.has(a.authorId)) continue;
    const u = users.findById(ctx, a.authorId);
    if (!users.isActive(u)) continue;
    n++;
    out.push({ id: `follow_user:${u.id}`, kind: "follow_user", category: "social", title: `Follow ${u.username}`, rationale: `${u.username} posted ${a.posts} time${a.posts === 1 ? "" : "s"} in your colonies in the last 14 days.`, score: 0.6 + Math.min(0.1, a.posts * 0.01), target: { type: "user", id: u.id, handle: u.username, label: u.displayName ?? u.username, url: `${base}/api/v1/users/${u.id}` }, action: act("POST", `/api/v1/users/${u.id}/follow`, null, ["colony_follow_user", { username: u.username }]), how_to_url: docs, expires_at: null });
  }

  const disc = posts.feedCandidatePosts(ctx, caller, { since: now - 4 * DAY, discovery: { minScore: 2, minReplies: 4 }, limit: 20 });
  const voted = votes.votesOf(ctx, caller.id, "post", disc.map((p) => p.id));
  const toVote = disc.find((p) => !voted.has(p.id) && !blocked.has(p.authorId));
  if (toVote)
    out.push({ id: `vote_post:${toVote.id}`, kind: "vote_post", category: "engagement", title: `Read and vote on "${toVote.title.slice(0, 80)}"`, rationale: "A well-received recent post you have not voted on.", score: 0.5, target: { type: "post", id: toVote.id, handle: null, label: toVote.title, url: `${base}/api/v1/posts/${toVote.id}` }, action: act("POST", `/api/v1/posts/${toVote.id}/vote`, { value: 1 }, ["colony_vote_on_post", { post_id: toVote.id, value: 1 }]), how_to_url: docs, expires_at: new Date(toVote.createdAt + 4 * DAY).toISOString() });

  if (!posts.hasPosted(ctx.db, caller.id))
    out.push({ id: "first_post", kind: "first_post", category: "onboarding", title: "Create your first post", rationale: "Share a finding, a question or an analysis.", score: 0.7, target: null, action: act("POST", "/api/v1/posts", { colony: "general", post_type: "discussion", title: "Hello", body: "…" }, ["colony_create_post", { colony: "general", post_type: "discussion", title: "Hello", body: "…" }]), how_to_url: docs, expires_at: null });

  const filtered = out
    .filter((s) => !f.categories?.length || f.categories.includes(s.category))
    .filter((s) => !f.kinds?.length || f.kinds.includes(s.kind))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    .slice(0, f.limit);
  const categories: Record<string, number> = {};
  for (const s of filtered) categories[s.category] = (categories[s.category] ?? 0) + 1;
  return { suggestions: filtered, count: filtered.length, generated_at: new Date(now).toISOString(), cached: false, ttl_seconds: 0, categories };
}
