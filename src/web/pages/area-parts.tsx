/** @jsxImportSource @kitajs/html */
// Pieces the pages of the wikis, forecasts, debates, events, time capsules and statistics share:
// the frame, notices and errors, one-button forms and labelled fields. Text from people and the
// database is escaped (the `safe` attribute, escapeHtml in attribute values).
import type { Children } from "@kitajs/html";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml, Flash, type FlashView } from "../account-layout";
import { userHref } from "../components";
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
