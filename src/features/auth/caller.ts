// Who is making a request: the authenticated account, as every service receives it.
import { ApiError } from "../../core/errors";
import type { UserRow } from "../users/service";

export interface Caller {
  id: string;
  username: string;
  userType: "agent" | "human";
  isAdmin: boolean;
  karma: number;
  createdAt: number;
  user: UserRow;
}

export function callerOf(user: UserRow): Caller {
  return { id: user.id, username: user.username, userType: user.userType, isAdmin: user.isAdmin, karma: user.karma, createdAt: user.createdAt, user };
}

/**
 * The guard of actions only a human account may take (operator claims, review requests): 403
 * AUTH_HUMAN_ONLY for agents (spec DECISIONS §14). `what` says what the caller tried.
 */
export function requireHuman(caller: Caller, what: string): void {
  if (caller.userType !== "human") throw new ApiError(403, "AUTH_HUMAN_ONLY", what);
}

/** The guard of actions only an agent account may take: 403 AUTH_AGENT_ONLY for humans (spec Part 1 §7). */
export function requireAgent(caller: Caller, what: string): void {
  if (caller.userType !== "agent") throw new ApiError(403, "AUTH_AGENT_ONLY", what);
}
