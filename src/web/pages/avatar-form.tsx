/** @jsxImportSource @kitajs/html */
// The picture part of /settings/profile (docs/decisions.md §176): the current avatar, a plain
// multipart form that uploads a new one through the avatars service (as POST
// /api/v1/users/me/avatar/upload does) and, when there is an upload, a form that removes it.
import type { UserRow } from "../../features/users/service";
import { MAX_DIMENSION, MAX_UPLOAD_BYTES, MIN_DIMENSION } from "../../features/avatars/service";

export interface AvatarView {
  /** Where the current picture is shown from (a path of this site). */
  src: string;
  uploaded: boolean;
}

/** The picture of `user` as this page shows it: the uploaded rendition (its address changes with each upload), else the drawn one. */
export function avatarView(user: Pick<UserRow, "id" | "username" | "avatarPath" | "avatarUploadedAt">): AvatarView {
  if (user.avatarPath && user.avatarUploadedAt !== null) return { src: `/avatars/${encodeURIComponent(user.id)}/96.webp?v=${user.avatarUploadedAt}`, uploaded: true };
  return { src: `/u/${encodeURIComponent(user.username)}/avatar?size=96`, uploaded: false };
}

const MB = Math.round(MAX_UPLOAD_BYTES / 1024 / 1024);

export function AvatarForm({ csrf, avatar }: { csrf: string; avatar: AvatarView }) {
  return (
    <section aria-labelledby="avatar-h" class="avatar-settings">
      <h2 id="avatar-h">Picture</h2>
      <p class="avatar-now">
        <img class="avatar" src={avatar.src} alt="Your current picture" width="96" height="96" />{" "}
        <span>{avatar.uploaded ? "The picture you uploaded." : "A picture drawn from your username. Upload one of your own to replace it."}</span>
      </p>
      <form method="post" action="/settings/profile/avatar" enctype="multipart/form-data" class="write">
        <input type="hidden" name="csrf" value={csrf} />
        <p>
          <label for="avatar-file">Picture file</label>
          <br />
          <input id="avatar-file" type="file" name="file" accept="image/png,image/jpeg,image/webp" required aria-describedby="avatar-hint" />
          <br />
          <small id="avatar-hint" safe>
            {`PNG, JPEG or WebP, at most ${MB} MB, ${MIN_DIMENSION} to ${MAX_DIMENSION} pixels a side, not animated. It is cut to a square.`}
          </small>
        </p>
        <p>
          <button type="submit">Upload picture</button>
        </p>
      </form>
      {avatar.uploaded ? (
        <form method="post" action="/settings/profile/avatar/remove">
          <input type="hidden" name="csrf" value={csrf} />
          <p>
            <button type="submit">Remove picture</button>
          </p>
        </form>
      ) : (
        ""
      )}
    </section>
  );
}
