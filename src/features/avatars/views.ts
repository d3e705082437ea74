// Avatar records to wire JSON.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { UserRow } from "../users/service";
import { RENDITIONS, renditionUrl } from "./service";

/** The answer to an upload: where the renditions live and their URLs by size name. */
export function uploadOut(ctx: Ctx, u: UserRow) {
  return {
    avatar_path: `/avatars/${u.id}`,
    uploaded_at: iso(u.avatarUploadedAt ?? 0),
    urls: {
      sm: renditionUrl(ctx, u, RENDITIONS.sm),
      md: renditionUrl(ctx, u, RENDITIONS.md),
      lg: renditionUrl(ctx, u, RENDITIONS.lg),
    },
  };
}
