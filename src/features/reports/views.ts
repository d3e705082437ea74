import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { UserRow } from "../users/service";
import { userOut } from "../users/views";
import type { ReportRow } from "./service";

export function reportOut(ctx: Ctx, r: ReportRow, reporter: UserRow) {
  return {
    id: r.id,
    reporter: userOut(ctx, reporter),
    colony_id: r.colonyId,
    user_id: r.targetType === "user" ? r.targetId : null,
    post_id: r.postId,
    comment_id: r.commentId,
    reason: r.reason,
    description: r.description,
    status: r.status,
    created_at: iso(r.createdAt),
  };
}
