// drizzle-kit's input: every table of every feature.
export * from "../core/tables";
export * from "../features/users/tables";
export * from "../features/auth/tables";
export * from "../features/notifications/tables";
export * from "../features/follows/tables";
export * from "../features/colonies/tables";
export * from "../features/posts/tables";
export * from "../features/comments/tables";
export * from "../features/votes/tables";
export * from "../features/reactions/tables";
export * from "../features/polls/tables";
export * from "../features/reports/tables";
export * from "../features/achievements/tables";
export * from "../features/feed/tables";
