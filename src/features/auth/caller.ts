// Who is making a request: the authenticated account, as every service receives it.
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
