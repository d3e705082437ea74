/** @jsxImportSource @kitajs/html */
// The frame of the account pages (sign-up, sign-in, reset, settings) and the pieces their forms
// share, around the site's layout (layout.tsx). These pages, and the moderation and request pages
// that use the same pieces, write every value with escapeHtml: each special character as a
// numeric reference, in text and in attribute values alike (JSX attributes escape only the quote).
import type { Children } from "@kitajs/html";
import { iso } from "../core/clock";
import { Page } from "./layout";
import type { Web } from "./session";

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What every page knows: who is looking, and the token its forms carry. */
export type Frame = Pick<Web, "viewer" | "csrf">;

/** The hidden CSRF field every form carries. */
export const CsrfField = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={escapeHtml(csrf)} />;

/** A hidden field of a form. */
export const Hidden = ({ name, value }: { name: string; value: string }) => <input type="hidden" name={name} value={escapeHtml(value)} />;

/** An instant in UTC ("2026-07-01 14:05 UTC"), with its machine-readable form. */
export const When = ({ ms }: { ms: number }) => (
  <time datetime={iso(ms)} safe>
    {`${iso(ms).slice(0, 16).replace("T", " ")} UTC`}
  </time>
);

// ---- the pieces of the account pages' forms

interface InputProps {
  id: string;
  name?: string;
  label: string;
  type?: "text" | "password" | "email";
  value?: string;
  autocomplete?: string;
  required?: boolean;
  minlength?: number;
  maxlength?: number;
  hint?: string;
  inputmode?: string;
}

/** A labelled input, with its hint tied to it for screen readers. */
export function Input(f: InputProps) {
  return (
    <p>
      <label for={f.id}>{escapeHtml(f.label)}</label>
      <br />
      <input
        id={f.id}
        name={f.name ?? f.id}
        type={f.type ?? "text"}
        value={f.value ? escapeHtml(f.value) : undefined}
        autocomplete={f.autocomplete || undefined}
        required={f.required || undefined}
        minlength={f.minlength || undefined}
        maxlength={f.maxlength || undefined}
        inputmode={f.inputmode || undefined}
        aria-describedby={f.hint ? `${f.id}-hint` : undefined}
      />
      {f.hint ? (
        <>
          <br />
          <small id={`${f.id}-hint`}>{escapeHtml(f.hint)}</small>
        </>
      ) : (
        ""
      )}
    </p>
  );
}

/** A form of the page: its CSRF token, its fields and one button. */
export function Form({ frame, action, button, children }: { frame: Frame; action: string; button: string; children?: Children }) {
  return (
    <form method="post" action={escapeHtml(action)}>
      <CsrfField csrf={frame.csrf} />
      {children}
      <p>
        <button type="submit">{escapeHtml(button)}</button>
      </p>
    </form>
  );
}

export function Alert({ error }: { error?: string | null }) {
  return error ? (
    <p role="alert">
      <strong>{escapeHtml(error)}</strong>
    </p>
  ) : (
    ""
  );
}

export const Status = ({ notice }: { notice?: string | null }) => (notice ? <p role="status">{escapeHtml(notice)}</p> : "");

/** What a page or a section says above its forms: the notice of a done form, the error of a refused one. */
export interface FlashView {
  error?: string | null;
  notice?: string | null;
}

/** The notice, then the error, above a page's or a section's forms. */
export function Flash({ error, notice }: FlashView) {
  return (
    <>
      {notice ? (
        <p role="status" class="flash">
          {escapeHtml(notice)}
        </p>
      ) : (
        ""
      )}
      {error ? (
        <p role="alert" class="flash bad">
          <strong>{escapeHtml(error)}</strong>
        </p>
      ) : (
        ""
      )}
    </>
  );
}

/** The account pages' own navigation, for a signed-in viewer (the shared header signs out). */
function SettingsNav({ frame }: { frame: Frame }) {
  if (!frame.viewer) return "";
  return (
    <nav aria-label="Settings" class="tabs">
      <a href="/settings/profile">Profile</a> <a href="/settings/account">Account</a> <a href="/settings/security">Security</a> <a href="/settings/connections">Connections</a>
    </nav>
  );
}

/** A whole page in the site's layout (layout.tsx): the title as its heading, the settings' navigation, then `body`. */
export function layout(frame: Frame, title: string, body: Children): string {
  const viewer = frame.viewer ? { username: frame.viewer.user.username, displayName: frame.viewer.user.displayName, isAdmin: frame.viewer.user.isAdmin } : null;
  return Page({
    title,
    viewer,
    csrf: frame.csrf,
    noindex: true,
    children: (
      <section class="account">
        <h1>{escapeHtml(title)}</h1>
        <SettingsNav frame={frame} />
        {body}
      </section>
    ),
  });
}
