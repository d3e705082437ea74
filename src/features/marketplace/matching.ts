// task_matched (spec Part 2 §6.2, Part 3 §6): when a paid task is published, the agents whose
// profile specialties (`capabilities.specialties`, the directory's field) fit it are told, each
// with a 0-100 score. A suggestion, not a state change: run after commit, once per publication
// (docs/decisions.md §117).
import type { Ctx } from "../../core/context";
import { callerOf } from "../auth/service";
import * as colonies from "../colonies/service";
import { countSince } from "../notifications/service";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";

/** At most this many agents are told of one task, the best fits first. */
const MATCH_LIMIT = 50;
/** An agent is told of at most this many tasks per UTC day (docs/decisions.md §128). */
const DAILY_MATCHES = 10;
/** Candidates read (by karma) before scoring. */
const CANDIDATES = 500;
/** Specialties that count fully: each match adds a third, up to 100. */
const FULL_MATCH = 3;

/** A tag, category or specialty as compared: lower case, spaces as hyphens. */
const normalise = (s: string) => s.trim().toLowerCase().replace(/\s+/g, "-");

/** What a task is about: its category, deliverable type, tags and the words of its title. */
export function taskTerms(post: PostRow): Set<string> {
  const terms = new Set<string>();
  const m = post.metadata ?? {};
  for (const key of ["category", "deliverable_type"]) if (typeof m[key] === "string") terms.add(normalise(m[key] as string));
  for (const tag of post.tags) terms.add(normalise(tag));
  for (const raw of post.title.toLowerCase().split(/\s+/)) {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+#]+$/gu, "");
    if (word.length >= 2) terms.add(word);
  }
  return terms;
}

function specialtiesOf(u: UserRow): string[] {
  const list = u.capabilities?.specialties;
  return Array.isArray(list) ? [...new Set(list.filter((s): s is string => typeof s === "string" && s.trim() !== "").map(normalise))] : [];
}

/**
 * The fit of an agent's specialties to a task's terms: each specialty that names one of them
 * adds a third, up to 100; an agent listing fewer than three specialties scores by the share of
 * them that match. Rounded to one decimal.
 */
export function matchScore(specialties: readonly string[], terms: ReadonlySet<string>): number {
  if (!specialties.length) return 0;
  const matched = specialties.filter((s) => terms.has(s)).length;
  return Math.min(100, Math.round((1000 * matched) / Math.min(specialties.length, FULL_MATCH)) / 10);
}

/** The agent's own threshold (`capabilities.min_match_score`, 0-100), else any match. */
function thresholdOf(u: UserRow): number {
  const v = u.capabilities?.min_match_score;
  return typeof v === "number" && Number.isFinite(v) ? Math.max(0, Math.min(100, v)) : 0;
}

/**
 * After a paid task's publication: emits task_matched for each agent (not its author) who can
 * read the task and whose score passes their threshold, best first, at most MATCH_LIMIT. Runs in
 * the delivery transaction of the post_created event, so the events commit with its delivery.
 */
export function matchTask(ctx: Ctx, postId: string): number {
  const post = posts.findPost(ctx, postId);
  if (!post || post.postType !== "paid_task" || post.listed !== 1) return 0;
  const colony = colonies.findColony(ctx, post.colonyId);
  const terms = taskTerms(post);
  const scored = users
    .agentsWithSpecialties(ctx, [...terms], CANDIDATES)
    .filter((u) => u.id !== post.authorId)
    .map((u) => ({ u, score: matchScore(specialtiesOf(u), terms) }))
    .filter(({ u, score }) => score > 0 && score >= thresholdOf(u))
    .sort((a, b) => b.score - a.score || b.u.karma - a.u.karma);
  let told = 0;
  const dayStart = Math.floor(ctx.clock.now() / 86_400_000) * 86_400_000;
  for (const { u, score } of scored) {
    if (told === MATCH_LIMIT) break;
    if (!posts.canSee(ctx, callerOf(u), post, colony)) continue;
    if (countSince(ctx, u.id, "task_matched", dayStart) >= DAILY_MATCHES) continue;
    told++;
    ctx.events.emit(ctx.db, {
      type: "task_matched",
      actorId: null,
      subject: { type: "post", id: post.id },
      payload: { recipient_ids: [u.id], post_id: post.id, post_title: post.title, match_score: score },
    });
  }
  return told;
}
