/** @jsxImportSource @kitajs/html */
// Pieces the pages of the wikis, forecasts, debates, events, time capsules and statistics share:
// the frame, notices and errors, one-button forms and labelled fields. Text from people and the
// database is escaped (the `safe` attribute, escapeHtml in attribute values).
import type { Children } from "@kitajs/html";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml, Flash, type FlashView } from "../account-layout";
import { Tabs, userHref } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";

export { escapeHtml, Flash, type FlashView };

/** A whole page in the site's layout. */
export function areaPage(visit: Visit, title: string, body: Children, opts: { noindex?: boolean; description?: string } = {}): string {
  return Page({ title, viewer: visit.viewer, csrf: visit.csrf, noindex: opts.noindex, description: opts.description, children: body });
}

/** A form posting `children` and one button; every form carries the visit's CSRF token. */
export function PostForm({ visit, action, label, cls, children }: { visit: Visit; action: string; label: string; cls?: string; children?: Children }) {
  return (
    <form method="post" action={escapeHtml(action)} class={cls ?? "inline"}>
      <CsrfField csrf={visit.csrf ?? ""} />
      {children}
      <button type="submit" safe>
        {label}
      </button>
    </form>
  );
}

/** A labelled one-line text field (a hint tied to it for screen readers). */
export function TextField(p: { id: string; name?: string; label: string; value?: string; required?: boolean; maxlength?: number; hint?: string; type?: string; min?: string; max?: string; step?: string }) {
  return (
    <p>
      <label for={p.id} safe>
        {p.label}
      </label>
      <br />
      <input
        id={p.id}
        name={p.name ?? p.id}
        type={p.type ?? "text"}
        value={p.value ? escapeHtml(p.value) : undefined}
        required={p.required || undefined}
        maxlength={p.maxlength || undefined}
        min={p.min}
        max={p.max}
        step={p.step}
        aria-describedby={p.hint ? `${p.id}-hint` : undefined}
      />
      {p.hint ? (
        <>
          <br />
          <small id={`${p.id}-hint`} safe>
            {p.hint}
          </small>
        </>
      ) : (
        ""
      )}
    </p>
  );
}

/** A labelled text area. */
export function TextArea(p: { id: string; name?: string; label: string; value?: string; rows?: number; required?: boolean; maxlength?: number; hint?: string }) {
  return (
    <p>
      <label for={p.id} safe>
        {p.label}
      </label>
      <br />
      <textarea id={p.id} name={p.name ?? p.id} rows={String(p.rows ?? 8)} required={p.required || undefined} maxlength={p.maxlength || undefined} aria-describedby={p.hint ? `${p.id}-hint` : undefined} safe>
        {p.value ?? ""}
      </textarea>
      {p.hint ? (
        <>
          <br />
          <small id={`${p.id}-hint`} safe>
            {p.hint}
          </small>
        </>
      ) : (
        ""
      )}
    </p>
  );
}

/** A person's name linking to their profile; "[deleted]" when the account is gone. */
export function Person({ user }: { user: UserRow | null | undefined }) {
  if (!user) return <span>[deleted]</span>;
  return (
    <a href={userHref(user.username)} safe>
      {user.displayName || user.username}
    </a>
  );
}

/** What a visitor who is not signed in sees where a form would be. */
export function SignInToTakePart({ next, what }: { next: string; what: string }) {
  return (
    <p class="note">
      <a href={`/login?next=${encodeURIComponent(next)}`}>Sign in</a>
      <span safe>{` to ${what}.`}</span>
    </p>
  );
}

/** Where a list page can go: another status filter, order or page (a filter or order chosen goes back to page 1). */
type ListMove = { status?: string; sort?: string; page?: number };

/**
 * The address of a list at `path` with a status filter, an order and a page, the current ones
 * kept where `move` does not change them; "newest" (the default order), no filter and page 1 are
 * left out of it.
 */
export const listHref =
  (path: string, current: { status: string; sort: string }) =>
  (move: ListMove): string => {
    const q = new URLSearchParams();
    const status = move.status ?? current.status;
    const sort = move.sort ?? current.sort;
    if (status) q.set("status", status);
    if (sort && sort !== "newest") q.set("sort", sort);
    if (move.page && move.page > 1) q.set("page", String(move.page));
    const s = q.toString();
    return `${path}${s ? `?${s}` : ""}`;
  };

type Choices = readonly (readonly [value: string, text: string])[];

/** A list's status filters ("Show") and orders ("Order") as two rows of tabs, each going back to page 1. */
export function ListTabs({ href, current, statuses, sorts }: { href: (move: ListMove) => string; current: { status: string; sort: string }; statuses: Choices; sorts: Choices }) {
  return (
    <>
      <Tabs label="Show" items={statuses.map(([status, text]) => ({ href: href({ status, page: 1 }), text, current: current.status === status }))} />
      <Tabs label="Order" items={sorts.map(([sort, text]) => ({ href: href({ sort, page: 1 }), text, current: current.sort === sort }))} />
    </>
  );
}
