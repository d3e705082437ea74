/** @jsxImportSource @kitajs/html */
// /bookmarks (bookmark-routes.ts): the signed-in person's bookmarked posts, newest bookmark first,
// all of them or one folder's (or those in none), with the folders to make, rename and delete, and
// each bookmark's move to a folder and removal. Every form is a plain POST with the page's token.
import { escapeHtml } from "@kitajs/html";
import type { PostRow } from "../../features/posts/service";
import { escapeHtml as attr } from "../account-layout";
import { Pager, plural, PostMeta, postHref, Tabs, type PostRefs } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";
import { withQuery } from "./directories";

const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={attr(csrf)} />;

export interface FolderItem {
  id: string;
  name: string;
}

/** Which bookmarks the page shows: all, those in no folder, or one folder's. */
export type Shelf = { kind: "all" } | { kind: "unsorted" } | { kind: "folder"; folder: FolderItem };

export const shelfParam = (s: Shelf) => (s.kind === "all" ? null : s.kind === "unsorted" ? "unsorted" : s.folder.id);
export const shelfHref = (s: Shelf, page = 1) => withQuery("/bookmarks", { folder: shelfParam(s), page: page > 1 ? page : null });

function Bookmark({ post, refs, folders, shelf, csrf }: { post: PostRow; refs: PostRefs; folders: readonly FolderItem[]; shelf: Shelf; csrf: string }) {
  const back = shelfParam(shelf) ?? "";
  const current = shelf.kind === "folder" ? shelf.folder.id : shelf.kind === "unsorted" ? "unsorted" : "";
  const selectId = `move-${post.id}`;
  return (
    <li>
      <h2>
        <a href={postHref(post.id)} safe>
          {post.title}
        </a>
      </h2>
      <PostMeta post={post} refs={refs} />
      <div class="own-acts">
        {folders.length ? (
          <form method="post" action="/bookmarks/move" class="act">
            <Csrf csrf={csrf} />
            <input type="hidden" name="post_id" value={post.id} />
            <input type="hidden" name="back" value={attr(back)} />
            <label for={selectId} class="vh" safe>{`Folder for “${post.title}”`}</label>
            <select id={selectId} name="folder">
              {shelf.kind === "all" ? <option value="">Move to…</option> : ""}
              <option value="unsorted" selected={current === "unsorted"}>
                No folder
              </option>
              {folders.map((f) => (
                <option value={f.id} selected={current === f.id} safe>
                  {f.name}
                </option>
              ))}
            </select>
            <button type="submit" aria-label={attr(`Move “${post.title}”`)}>
              Move
            </button>
          </form>
        ) : (
          ""
        )}
        <form method="post" action="/bookmarks/remove" class="act">
          <Csrf csrf={csrf} />
          <input type="hidden" name="post_id" value={post.id} />
          <input type="hidden" name="back" value={attr(back)} />
          <button type="submit" aria-label={attr(`Remove the bookmark of “${post.title}”`)}>
            Remove
          </button>
        </form>
      </div>
    </li>
  );
}

export function BookmarksPage({
  visit,
  shelf,
  folders,
  posts,
  refs,
  total,
  page,
  hasMore,
  error,
  notice,
}: {
  visit: Visit;
  shelf: Shelf;
  folders: readonly FolderItem[];
  posts: readonly PostRow[];
  refs: PostRefs;
  total: number;
  page: number;
  hasMore: boolean;
  error?: string | null;
  notice?: string | null;
}) {
  const csrf = visit.csrf ?? "";
  const heading = shelf.kind === "all" ? "Your bookmarks" : shelf.kind === "unsorted" ? "Bookmarks in no folder" : `Bookmarks in “${shelf.folder.name}”`;
  return (
    <Page title={heading} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{heading}</h1>
      {error ? (
        <p role="alert">
          <strong safe>{error}</strong>
        </p>
      ) : (
        ""
      )}
      {notice ? <p role="status" safe>{notice}</p> : ""}
      <Tabs
        label="Folders"
        items={[
          { href: "/bookmarks", text: "All", current: shelf.kind === "all" },
          { href: "/bookmarks?folder=unsorted", text: "No folder", current: shelf.kind === "unsorted" },
          ...folders.map((f) => ({ href: `/bookmarks?folder=${f.id}`, text: f.name, current: shelf.kind === "folder" && shelf.folder.id === f.id })),
        ]}
      />
      <p class="meta">{escapeHtml(plural(total, "bookmark"))}</p>
      {posts.length ? (
        <ul class="rows dir">
          {posts.map((p) => (
            <Bookmark post={p} refs={refs} folders={folders} shelf={shelf} csrf={csrf} />
          ))}
        </ul>
      ) : (
        <p class="empty">{shelf.kind === "all" ? "No bookmarks yet: the Bookmark button under a post keeps it here." : "No bookmarks here."}</p>
      )}
      <Pager page={page} hasMore={hasMore} href={(n) => shelfHref(shelf, n)} />
      <p class="note">
        Bookmarks are yours alone. To share a list of posts, make a <a href="/collections">collection</a>.
      </p>
      {shelf.kind === "folder" ? (
        <section aria-labelledby="folder-h" class="dir-new">
          <h2 id="folder-h">This folder</h2>
          <form method="post" action={`/bookmarks/folders/${shelf.folder.id}/rename`} class="filters">
            <Csrf csrf={csrf} />
            <label for="folder-rename">Name</label>
            <input id="folder-rename" name="name" type="text" required maxlength="100" value={attr(shelf.folder.name)} />
            <button type="submit">Rename</button>
          </form>
          <form method="post" action={`/bookmarks/folders/${shelf.folder.id}/delete`} class="act">
            <Csrf csrf={csrf} />
            <button type="submit">Delete the folder</button>
            <span class="meta">Its bookmarks stay, in no folder.</span>
          </form>
        </section>
      ) : (
        ""
      )}
      <section aria-labelledby="new-folder-h" class="dir-new">
        <h2 id="new-folder-h">New folder</h2>
        <form method="post" action="/bookmarks/folders" class="filters">
          <Csrf csrf={csrf} />
          <label for="folder-name">Name</label>
          <input id="folder-name" name="name" type="text" required maxlength="100" />
          <button type="submit">Make the folder</button>
        </form>
      </section>
    </Page>
  );
}
