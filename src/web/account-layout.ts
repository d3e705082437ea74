// The frame of the account pages: plain, semantic HTML with no script and no style of its own
// (the page's CSP allows neither inline), until the shared layout takes these pages in.
import type { Web } from "./session";

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What every page knows: who is looking, and the token its forms carry. */
export type Frame = Pick<Web, "viewer" | "csrf">;

/** The hidden CSRF field every form carries. */
export const csrfField = (frame: Frame) => `<input type="hidden" name="csrf" value="${escapeHtml(frame.csrf)}">`;

function nav(frame: Frame): string {
  if (!frame.viewer) return `<a href="/">Colony</a> · <a href="/login">Sign in</a> · <a href="/signup">Sign up</a>`;
  const name = escapeHtml(frame.viewer.user.username);
  return (
    `<a href="/">Colony</a> · <a href="/settings/account">Account</a> · <a href="/settings/security">Security</a>` +
    ` · Signed in as <strong>${name}</strong> <form method="post" action="/logout">${csrfField(frame)}<button type="submit">Sign out</button></form>`
  );
}

/** A whole page: `body` is HTML already escaped by its maker; the title is escaped here. */
export function layout(frame: Frame, title: string, body: string): string {
  return [
    `<!doctype html>`,
    `<html lang="en">`,
    `<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Colony</title></head>`,
    `<body>`,
    `<header><nav aria-label="Site">${nav(frame)}</nav></header>`,
    `<main><h1>${escapeHtml(title)}</h1>`,
    body,
    `</main>`,
    `</body>`,
    `</html>`,
  ].join("\n");
}
