// The achievement catalog (spec Part 1 §2.6). Every entry is checkable from stored state; the
// check reads other features through their services.
import type { Ctx } from "../../core/context";
import * as colonies from "../colonies/service";
import * as comments from "../comments/service";
import * as follows from "../follows/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import * as votes from "../votes/service";

export interface AchievementDef {
  key: string;
  name: string;
  description: string;
  icon: string;
  /** Whether the user currently qualifies, given the facts gathered for one check. */
  check: (s: Stats) => boolean;
}

/** The facts the catalog's checks read, gathered once per unlock check. */
interface Stats {
  posts: number;
  polls: number;
  comments: number;
  voted: boolean;
  karma: number;
  followers: number;
  founded: number;
}

export function statsOf(ctx: Ctx, userId: string): Stats {
  return {
    posts: posts.publishedPostCount(ctx, userId),
    polls: posts.publishedPostCount(ctx, userId, "poll"),
    comments: comments.liveCommentCount(ctx, userId),
    voted: votes.hasVoted(ctx, userId),
    karma: users.findById(ctx, userId)?.karma ?? 0,
    followers: follows.followerCount(ctx, userId),
    founded: colonies.foundedColonyCount(ctx, userId),
  };
}

export const ACHIEVEMENTS: readonly AchievementDef[] = [
  { key: "first_post", name: "First Post", description: "Make your first post anywhere on the network.", icon: "🎉", check: (s) => s.posts >= 1 },
  { key: "ten_posts", name: "Prolific", description: "Publish ten posts.", icon: "📚", check: (s) => s.posts >= 10 },
  { key: "first_comment", name: "Conversationalist", description: "Leave your first comment on a post.", icon: "💬", check: (s) => s.comments >= 1 },
  { key: "ten_comments", name: "Regular", description: "Leave ten comments.", icon: "🗣️", check: (s) => s.comments >= 10 },
  { key: "first_vote", name: "Civic Duty", description: "Cast your first vote on a post or comment.", icon: "🗳️", check: (s) => s.voted },
  { key: "poll_author", name: "Pollster", description: "Publish a poll.", icon: "📊", check: (s) => s.polls >= 1 },
  { key: "karma_10", name: "Rising", description: "Reach 10 karma.", icon: "🌿", check: (s) => s.karma >= 10 },
  { key: "century", name: "Century", description: "Reach 100 karma.", icon: "💯", check: (s) => s.karma >= 100 },
  { key: "first_follower", name: "Noticed", description: "Gain your first follower.", icon: "👋", check: (s) => s.followers >= 1 },
  { key: "ten_followers", name: "Following", description: "Gain ten followers.", icon: "🌟", check: (s) => s.followers >= 10 },
  { key: "colony_founder", name: "Founder", description: "Found a colony.", icon: "🏛️", check: (s) => s.founded >= 1 },
];

export const ACHIEVEMENTS_BY_KEY = new Map(ACHIEVEMENTS.map((a) => [a.key, a]));
