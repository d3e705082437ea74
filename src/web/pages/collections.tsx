/** @jsxImportSource @kitajs/html */
// Collections (collection-routes.ts): ordered lists of public posts with notes. /collections lists
// them (one's own, someone's public ones, or everyone's), /collections/<id> shows one with its
// posts, and its owner's forms: add a post, remove one, change the title, description and
// visibility, delete it. The post page offers adding the post to one of the viewer's collections.
import { escapeHtml } from "@kitajs/html";
import { escapeHtml as attr } from "../account-layout";
import { Pager, plural, POST_TYPE_LABELS, postHref, Tabs, Time, userHref } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";
import { withQuery } from "./directories";

const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={attr(csrf)} />;

function Alert({ error }: { error: string | null | undefined }) {
  return error ? (
    <p role="alert">
      <strong safe>{error}</strong>
    </p>
  ) : (
    ""
  );
}

export interface CollectionSummary {
  id: string;
  title: string;
  description: string | null;
  isPublic: boolean;
  postCount: number;
  updatedAt: number;
  owner: { username: string; displayName: string | null } | null;
}

/** Whose collections /collections shows: the viewer's, one person's public ones, or everyone's. */
export type Whose = { kind: "mine" } | { kind: "user"; username: string } | { kind: "all" };

export interface CollectionValues {
  title: string;
  description: string;
  isPublic: boolean;
}

function CollectionFields({ prefix, values }: { prefix: string; values: CollectionValues }) {
  return (
    <>
      <label for={`${prefix}-title`}>Title</label>
      <input id={`${prefix}-title`} name="title" type="text" required maxlength="200" value={attr(values.title)} />
      <label for={`${prefix}-description`}>Description (optional)</label>
      <textarea id={`${prefix}-description`} name="description" rows="3" maxlength="5000" safe>
        {values.description}
      </textarea>
      <label>
        <input type="checkbox" name="public" value="1" checked={values.isPublic} /> Public: anyone may see it
      </label>
    </>
  );
}

export function CollectionsPage({
  visit,
  whose,
  items,
  total,
  page,
  hasMore,
  form,
  error,
}: {
  visit: Visit;
  whose: Whose;
  items: readonly CollectionSummary[];
  total: number;
  page: number;
  hasMore: boolean;
  form: CollectionValues;
  error?: string | null;
}) {
  const heading = whose.kind === "mine" ? "Your collections" : whose.kind === "user" ? `Collections of @${whose.username}` : "Collections";
  const param = whose.kind === "user" ? { user: whose.username } : whose.kind === "all" && visit.caller ? { all: "1" } : {};
  return (
    <Page title={heading} viewer={visit.viewer} csrf={visit.csrf} description="Lists of posts put together by the people of this instance.">
      <h1 safe>{heading}</h1>
      {visit.caller ? (
        <Tabs
          label="Whose collections"
          items={[
            { href: "/collections", text: "Yours", current: whose.kind === "mine" },
            { href: "/collections?all=1", text: "Everyone's public ones", current: whose.kind === "all" },
          ]}
        />
      ) : (
        ""
      )}
      <p class="meta">{escapeHtml(plural(total, "collection"))}</p>
      {items.length ? (
        <ul class="rows dir">
          {items.map((c) => (
            <li>
              <h2>
                <a href={`/collections/${c.id}`} safe>
                  {c.title}
                </a>
              </h2>
              {c.description ? <p class="dir-text" safe>{c.description.length > 280 ? `${c.description.slice(0, 279)}…` : c.description}</p> : ""}
              <p class="meta">
                {escapeHtml(plural(c.postCount, "post"))}
                {c.isPublic ? "" : " · private"}
                {c.owner ? (
                  <>
                    {" · by "}
                    <a href={userHref(c.owner.username)} safe>
                      {c.owner.displayName || c.owner.username}
                    </a>
                  </>
                ) : (
                  ""
                )}
                {" · updated "}
                <Time at={c.updatedAt} />
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">{whose.kind === "mine" ? "You have no collections yet." : "No collections here."}</p>
      )}
      <Pager page={page} hasMore={hasMore} href={(n) => withQuery("/collections", { ...param, page: n > 1 ? n : null })} />
      {visit.caller && whose.kind === "mine" ? (
        <section aria-labelledby="new-collection-h" class="dir-new">
          <h2 id="new-collection-h">New collection</h2>
          <Alert error={error} />
          <form method="post" action="/collections" class="write">
            <Csrf csrf={visit.csrf ?? ""} />
            <CollectionFields prefix="new" values={form} />
            <button type="submit">Make the collection</button>
          </form>
        </section>
      ) : !visit.caller ? (
        <p class="note">
          <a href="/login?next=%2Fcollections">Sign in</a> to make collections of your own.
        </p>
      ) : (
        ""
      )}
    </Page>
  );
}

export interface CollectionItemView {
  postId: string;
  title: string;
  postType: keyof typeof POST_TYPE_LABELS;
  note: string | null;
  addedAt: number;
}

export interface CollectionPageState {
  error?: string | null;
  notice?: string | null;
  /** What the add form had, shown again after its refusal. */
  add?: { post: string; note: string };
  /** What the settings form had, shown again after its refusal. */
  settings?: CollectionValues;
}

export function CollectionPage({ visit, collection, items, own, state }: { visit: Visit; collection: CollectionSummary; items: readonly CollectionItemView[]; own: boolean; state: CollectionPageState }) {
  const csrf = visit.csrf ?? "";
  const base = `/collections/${collection.id}`;
  return (
    <Page title={collection.title} viewer={visit.viewer} csrf={visit.csrf} description={collection.description ?? undefined} noindex={!collection.isPublic}>
      <h1 safe>{collection.title}</h1>
      <p class="meta">
        {collection.isPublic ? "Public collection" : "Private collection"}
        {collection.owner ? (
          <>
            {" by "}
            <a href={userHref(collection.owner.username)} safe>
              {collection.owner.displayName || collection.owner.username}
            </a>
          </>
        ) : (
          ""
        )}
        {" · "}
        {escapeHtml(plural(collection.postCount, "post"))}
      </p>
      {collection.description ? <p class="dir-text" safe>{collection.description}</p> : ""}
      <Alert error={state.error} />
      {state.notice ? <p role="status" safe>{state.notice}</p> : ""}
      {items.length ? (
        <ol class="rows dir">
          {items.map((i) => (
            <li>
              <h2>
                <a href={postHref(i.postId)} safe>
                  {i.title}
                </a>
              </h2>
              <p class="meta">
                {POST_TYPE_LABELS[i.postType]}
                {" · added "}
                <Time at={i.addedAt} />
              </p>
              {i.note ? <p class="dir-text" safe>{i.note}</p> : ""}
              {own ? (
                <form method="post" action={`${base}/items/${i.postId}/remove`} class="act">
                  <Csrf csrf={csrf} />
                  <button type="submit" aria-label={attr(`Remove “${i.title}” from the collection`)}>
                    Remove
                  </button>
                </form>
              ) : (
                ""
              )}
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">No posts in it yet.</p>
      )}
      {own ? (
        <>
          <section aria-labelledby="add-h" class="dir-new">
            <h2 id="add-h">Add a post</h2>
            <form method="post" action={`${base}/items`} class="write">
              <Csrf csrf={csrf} />
              <label for="add-post">The post's address or id</label>
              <input id="add-post" name="post" type="text" required maxlength="300" value={attr(state.add?.post ?? "")} aria-describedby="add-post-hint" />
              <small id="add-post-hint">Any post everyone can read, e.g. /post/… as its page's address shows it. The form under each post adds it too.</small>
              <label for="add-note">Note (optional)</label>
              <input id="add-note" name="note" type="text" maxlength="500" value={attr(state.add?.note ?? "")} />
              <button type="submit">Add the post</button>
            </form>
          </section>
          <section aria-labelledby="settings-h" class="dir-new">
            <h2 id="settings-h">Title, description and visibility</h2>
            <form method="post" action={`${base}/edit`} class="write">
              <Csrf csrf={csrf} />
              <CollectionFields prefix="edit" values={state.settings ?? { title: collection.title, description: collection.description ?? "", isPublic: collection.isPublic }} />
              <button type="submit">Save</button>
            </form>
            <p>
              <a href={`${base}/delete`}>Delete this collection…</a>
            </p>
          </section>
        </>
      ) : (
        ""
      )}
      <p>
        <a href="/collections">← Collections</a>
      </p>
    </Page>
  );
}

export function DeleteCollectionPage({ visit, collection, error }: { visit: Visit; collection: CollectionSummary; error?: string | null }) {
  const base = `/collections/${collection.id}`;
  return (
    <Page title="Delete your collection?" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1>Delete your collection?</h1>
        <p class="meta">
          <a href={base} safe>
            {collection.title}
          </a>
        </p>
        <Alert error={error} />
        <p>The collection and its notes go; the posts in it stay where they are. This cannot be undone.</p>
        <form method="post" action={`${base}/delete`} class="own-acts">
          <Csrf csrf={visit.csrf ?? ""} />
          <button type="submit">Delete the collection</button>
          <a href={base}>Keep it</a>
        </form>
      </section>
    </Page>
  );
}

/** Under a post: add it to one of the viewer's collections. */
export function AddToCollectionForm({ postId, csrf, collections }: { postId: string; csrf: string; collections: readonly { id: string; title: string }[] }) {
  if (!collections.length) return "";
  return (
    <form method="post" action="/collections/add" class="act">
      <Csrf csrf={csrf} />
      <input type="hidden" name="post_id" value={postId} />
      <label for="add-to-collection" class="vh">
        Collection
      </label>
      <select id="add-to-collection" name="collection_id">
        {collections.map((c) => (
          <option value={c.id} safe>
            {c.title}
          </option>
        ))}
      </select>
      <button type="submit">Add to the collection</button>
    </form>
  );
}
