// Wiki rows -> wire JSON (the reference document's WikiPageOut, WikiPageListItem, WikiAuthor,
// WikiRevisionListItem, WikiRevisionOut; docs/decisions.md §88 for the rest). Authors are loaded
// in one query per answer; an account that no longer exists shows as "[deleted]".
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { withAliases } from "../../http/deprecations";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import type { Wiki } from "./access";
import type { EditorListing } from "./editors";
import type { PageRow, RevisionChange, RevisionRow } from "./service";

type People = Map<string, UserRow>;
/** A view with `colony`, the deprecated copy of `colony_name` that withAliases adds. */
type WithColony<T> = T & { colony: string | null };
const aliased = <T extends Record<string, unknown>>(where: string, obj: T) => withAliases(where, obj) as WithColony<T>;

const DELETED = { username: "[deleted]", display_name: "[deleted]" };

function author(people: People, id: string): { username: string; display_name: string } {
  const u = people.get(id);
  return u ? { username: u.username, display_name: u.displayName } : DELETED;
}

const peopleOf = (ctx: Ctx, ids: (string | null)[]) => users.findManyByIds(ctx, ids.filter((id): id is string => id !== null));

const colonyName = (wiki: Wiki) => wiki?.name ?? null;

function listFields(p: PageRow, people: People, wiki: Wiki) {
  return {
    id: p.id,
    slug: p.slug,
    title: p.title,
    category: p.category,
    updated_by: author(people, p.updatedBy),
    revision_count: p.revisionCount,
    colony_name: colonyName(wiki),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}

export function pageOut(ctx: Ctx, wiki: Wiki, p: PageRow) {
  const people = peopleOf(ctx, [p.createdBy, p.updatedBy]);
  return aliased("WikiPageOut", {
    id: p.id,
    slug: p.slug,
    title: p.title,
    content: p.content,
    category: p.category,
    created_by: author(people, p.createdBy),
    updated_by: author(people, p.updatedBy),
    is_locked: p.lockedAt !== null,
    revision_count: p.revisionCount,
    colony_name: colonyName(wiki),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  });
}

export function pageListOut(ctx: Ctx, wiki: Wiki, pages: PageRow[]) {
  const people = peopleOf(ctx, pages.map((p) => p.updatedBy));
  return pages.map((p) => aliased("WikiPageListItem", listFields(p, people, wiki)));
}

export function deletedListOut(ctx: Ctx, wiki: Wiki, pages: PageRow[]) {
  const people = peopleOf(ctx, pages.flatMap((p) => [p.createdBy, p.updatedBy, p.deletedBy]));
  return pages.map((p) =>
    aliased("WikiPageListItem", {
      ...listFields(p, people, wiki),
      created_by: author(people, p.createdBy),
      deleted_at: iso(p.deletedAt!),
      deleted_by: p.deletedBy ? author(people, p.deletedBy) : null,
    }),
  );
}

export function revisionListOut(ctx: Ctx, revs: RevisionRow[]) {
  const people = peopleOf(ctx, revs.map((r) => r.authorId));
  return revs.map((r) => ({ id: r.id, title: r.title, summary: r.summary, author: author(people, r.authorId), created_at: iso(r.createdAt) }));
}

export function revisionOut(ctx: Ctx, r: RevisionRow) {
  const people = peopleOf(ctx, [r.authorId]);
  return { id: r.id, title: r.title, content: r.content, summary: r.summary, author: author(people, r.authorId), created_at: iso(r.createdAt) };
}

export function revisionDiffOut(ctx: Ctx, c: RevisionChange) {
  const people = peopleOf(ctx, [c.revision.authorId]);
  return {
    revision_id: c.revision.id,
    previous_revision_id: c.previous?.id ?? null,
    old_title: c.previous?.title ?? null,
    new_title: c.revision.title,
    diff: c.diff,
    additions: c.additions,
    deletions: c.deletions,
    author: author(people, c.revision.authorId),
    created_at: iso(c.revision.createdAt),
  };
}

export function editorOut(e: EditorListing) {
  return {
    user_id: e.editor.userId,
    username: e.user?.username ?? DELETED.username,
    display_name: e.user?.displayName ?? DELETED.display_name,
    added_by: e.addedBy ? { username: e.addedBy.username, display_name: e.addedBy.displayName } : null,
    created_at: iso(e.editor.createdAt),
  };
}
