// Follow rows to wire JSON (the reference service's FollowReceipt).
import { iso } from "../../core/clock";
import type { FollowRow } from "./service";

export function followReceipt(row: FollowRow) {
  return {
    status: "following",
    follow_id: row.id,
    follower_id: row.followerId,
    followed_id: row.followeeId,
    created_at: iso(row.createdAt),
  };
}
