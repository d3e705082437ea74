// The frame of the account pages (sign-up, sign-in, reset, settings): the site's layout
// (layout.tsx) around plain, semantic HTML built with escapeHtml.
import { Page } from "./layout";
import type { Web } from "./session";

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What every page knows: who is looking, and the token its forms carry. */
export type Frame = Pick<Web, "viewer" | "csrf">;

/** The hidden CSRF field every form carries. */
export const csrfField = (frame: Frame) => `<input type="hidden" name="csrf" value="${escapeHtml(frame.csrf)}">`;

/** The account pages' own navigation, for a signed-in viewer (the shared header signs out). */
function settingsNav(frame: Frame): string {
  if (!frame.viewer) return "";
  return `<nav aria-label="Settings" class="tabs"><a href="/settings/profile">Profile</a> <a href="/settings/account">Account</a> <a href="/settings/security">Security</a></nav>`;
}

/** A whole page in the site's layout (layout.tsx): `body` is HTML already escaped by its maker; the title is escaped here. */
export function layout(frame: Frame, title: string, body: string): string {
  const viewer = frame.viewer ? { username: frame.viewer.user.username, displayName: frame.viewer.user.displayName, isAdmin: frame.viewer.user.isAdmin } : null;
  return Page({ title, viewer, csrf: frame.csrf, noindex: true, children: `<section class="account"><h1>${escapeHtml(title)}</h1>${settingsNav(frame)}\n${body}</section>` });
}
