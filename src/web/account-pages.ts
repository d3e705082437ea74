// The account pages as HTML strings: sign up, sign in (both steps), sign-in links, password reset,
// and the account and security settings. Every value that came from a person or the database is
// escaped here; every field has a label; every form posts form-encoded with its CSRF token.
import { iso } from "../core/clock";
import type { RegistrationMode } from "../config";
import type { SessionRow } from "../features/sessions/service";
import { csrfField, escapeHtml, layout, type Frame } from "./account-layout";

export { escapeHtml };

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

interface Input {
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
function input(f: Input): string {
  const attrs = [
    `id="${f.id}"`,
    `name="${f.name ?? f.id}"`,
    `type="${f.type ?? "text"}"`,
    f.value ? `value="${escapeHtml(f.value)}"` : "",
    f.autocomplete ? `autocomplete="${f.autocomplete}"` : "",
    f.required ? "required" : "",
    f.minlength ? `minlength="${f.minlength}"` : "",
    f.maxlength ? `maxlength="${f.maxlength}"` : "",
    f.inputmode ? `inputmode="${f.inputmode}"` : "",
    f.hint ? `aria-describedby="${f.id}-hint"` : "",
  ].filter(Boolean);
  const hint = f.hint ? `<br><small id="${f.id}-hint">${escapeHtml(f.hint)}</small>` : "";
  return `<p><label for="${f.id}">${escapeHtml(f.label)}</label><br><input ${attrs.join(" ")}>${hint}</p>`;
}

const form = (frame: Frame, action: string, fields: string, button: string) =>
  `<form method="post" action="${escapeHtml(action)}">${csrfField(frame)}${fields}<p><button type="submit">${escapeHtml(button)}</button></p></form>`;

const alert = (error?: string | null) => (error ? `<p role="alert"><strong>${escapeHtml(error)}</strong></p>` : "");
const status = (notice?: string | null) => (notice ? `<p role="status">${escapeHtml(notice)}</p>` : "");
const when = (ms: number) => `<time datetime="${iso(ms)}">${iso(ms).slice(0, 16).replace("T", " ")} UTC</time>`;

/** A page of one message (a refused form, an invalid link, a sent mail). */
export function messagePage(frame: Frame, title: string, text: string, links = `<p><a href="/">Home</a></p>`): string {
  return layout(frame, title, `<p>${escapeHtml(text)}</p>${links}`);
}

// ---- sign up

export interface SignUpValues {
  username?: string;
  display_name?: string;
  email?: string;
  invite?: string;
}

export function signUpPage(frame: Frame, opts: { mode: RegistrationMode; values?: SignUpValues; error?: string | null }): string {
  if (opts.mode === "closed") {
    return layout(frame, "Sign up", `<p>This server is not taking sign-ups. Ask its operator for an account.</p><p>Already have one? <a href="/login">Sign in</a>.</p>`);
  }
  const v = opts.values ?? {};
  const fields = [
    input({ id: "username", label: "Username", value: v.username, autocomplete: "username", required: true, minlength: 3, maxlength: 32, hint: "3 to 32 letters, digits, hyphens or underscores. It cannot be changed later." }),
    input({ id: "display_name", label: "Display name (optional)", value: v.display_name, autocomplete: "name", maxlength: 100 }),
    input({ id: "email", label: "Email address (optional)", type: "email", value: v.email, autocomplete: "email", maxlength: 255, hint: "We send a link to confirm it. Once confirmed you can sign in with it and reset your password." }),
    input({ id: "password", label: "Password", type: "password", autocomplete: "new-password", required: true, minlength: 10, maxlength: 256, hint: "At least 10 characters. A few unrelated words make a good one." }),
    opts.mode === "invite" ? input({ id: "invite", label: "Invite code", value: v.invite, autocomplete: "off", required: true, maxlength: 100, hint: "Signing up here needs a code from an administrator." }) : "",
  ].join("");
  return layout(frame, "Sign up", `${alert(opts.error)}${form(frame, "/signup", fields, "Create account")}<p>Already have an account? <a href="/login">Sign in</a>.</p>`);
}

// ---- sign in

export function signInPage(frame: Frame, opts: { next: string; login?: string; error?: string | null; notice?: string | null; emailLinks: boolean; signUp: boolean }): string {
  const password = form(
    frame,
    "/login",
    hidden("next", opts.next) +
      input({ id: "login", label: "Username or email address", value: opts.login, autocomplete: "username", required: true, maxlength: 255 }) +
      input({ id: "password", label: "Password", type: "password", autocomplete: "current-password", required: true, maxlength: 256 }),
    "Sign in",
  );
  const links = `<p><a href="/reset">Forgot your password?</a>${opts.signUp ? ` · <a href="/signup">Sign up</a>` : ""}</p>`;
  const byEmail = opts.emailLinks
    ? `<h2>Sign in with an email link</h2>` +
      form(frame, "/login/email-link", input({ id: "link-login", name: "login", label: "Username or email address", autocomplete: "username", required: true, maxlength: 255, hint: "We email a link that signs you in, to the address confirmed on your account." }), "Email me a link")
    : "";
  return layout(frame, "Sign in", `${status(opts.notice)}${alert(opts.error)}${password}${links}${byEmail}`);
}

export function secondFactorPage(frame: Frame, opts: { ticket: string; next: string; error?: string | null }): string {
  const fields =
    hidden("ticket", opts.ticket) +
    hidden("next", opts.next) +
    input({ id: "code", label: "Code", autocomplete: "one-time-code", required: true, maxlength: 32, hint: "The 6-digit code from your authenticator app, or one of your recovery codes." });
  return layout(frame, "Two-factor authentication", `${alert(opts.error)}${form(frame, "/login/second-factor", fields, "Verify")}<p><a href="/login">Start again</a></p>`);
}

/** The confirmation page of a sign-in link: a button, so that mail scanners that open links use nothing. */
export function signInLinkPage(frame: Frame, opts: { token: string; username: string; operator: boolean }): string {
  const who = `<p>This link signs you in as <strong>${escapeHtml(opts.username)}</strong>${opts.operator ? ", made for you by this server's operator" : ""}. It works once.</p>`;
  return layout(frame, "Sign in with a link", who + form(frame, `/login/link/${opts.token}`, "", "Sign in"));
}

// ---- password reset

export function resetRequestPage(frame: Frame, opts: { error?: string | null; notice?: string | null; mail: boolean }): string {
  const cannot = opts.mail ? "" : `<p>This server cannot send email. If you cannot sign in, ask its operator for a sign-in link.</p>`;
  const fields = input({ id: "login", label: "Username or email address", autocomplete: "username", required: true, maxlength: 255, hint: "We email a reset link to the address confirmed on your account." });
  return layout(frame, "Reset your password", `${status(opts.notice)}${alert(opts.error)}${cannot}${form(frame, "/reset", fields, "Email me a reset link")}<p><a href="/login">Sign in</a></p>`);
}

export function resetFormPage(frame: Frame, opts: { token: string; error?: string | null }): string {
  const fields = input({ id: "password", label: "New password", type: "password", autocomplete: "new-password", required: true, minlength: 10, maxlength: 256, hint: "At least 10 characters. Every browser signed in to your account will be signed out." });
  return layout(frame, "Choose a new password", `${alert(opts.error)}${form(frame, `/reset/${opts.token}`, fields, "Set password")}`);
}

// ---- settings

function browserOf(s: SessionRow): string {
  const ua = s.userAgent ?? "Unknown browser";
  return escapeHtml(ua.length > 120 ? `${ua.slice(0, 119)}…` : ua);
}

export interface AccountView {
  hasPassword: boolean;
  email: { email: string | null; email_verified: boolean };
  sessions: SessionRow[];
  error?: string | null;
  notice?: string | null;
}

export function accountPage(frame: Frame, view: AccountView): string {
  const viewer = frame.viewer!;
  const profile = `<h2>Profile</h2><dl><dt>Username</dt><dd>${escapeHtml(viewer.user.username)}</dd><dt>Display name</dt><dd>${escapeHtml(viewer.user.displayName)}</dd></dl>`;
  const { email, email_verified } = view.email;
  const emailState = !email
    ? `<p>No email address is set. With a confirmed address you can sign in with it and reset a forgotten password.</p>`
    : email_verified
      ? `<p><strong>${escapeHtml(email)}</strong> is confirmed.</p>`
      : `<p><strong>${escapeHtml(email)}</strong> is not confirmed yet: open the link we sent to it, or send a new one.</p>`;
  const emailForm = form(frame, "/settings/account/email", input({ id: "email", label: "Email address", type: "email", value: email ?? "", autocomplete: "email", required: true, maxlength: 255 }), email && !email_verified ? "Send the link again" : "Send a confirmation link");
  const password =
    `<h2>Password</h2>` +
    (view.hasPassword ? "" : `<p>Your account has no password yet: set one to sign in without a link.</p>`) +
    form(
      frame,
      "/settings/account/password",
      (view.hasPassword ? input({ id: "current", label: "Current password", type: "password", autocomplete: "current-password", required: true, maxlength: 256 }) : "") +
        input({ id: "password", label: "New password", type: "password", autocomplete: "new-password", required: true, minlength: 10, maxlength: 256, hint: "At least 10 characters. Other browsers signed in to your account will be signed out." }),
      view.hasPassword ? "Change password" : "Set password",
    );
  const rows = view.sessions
    .map((s) => {
      const current = s.id === viewer.sessionId;
      const action = form(frame, `/settings/account/sessions/${s.id}/revoke`, "", current ? "Sign out" : "Sign out this browser");
      return `<tr><td>${browserOf(s)}${current ? " <strong>(this browser)</strong>" : ""}</td><td>${escapeHtml(s.ip ?? "unknown")}</td><td>${when(s.createdAt)}</td><td>${when(s.lastSeenAt)}</td><td>${action}</td></tr>`;
    })
    .join("");
  const sessions =
    `<h2>Where you are signed in</h2>` +
    `<table><thead><tr><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table>` +
    form(frame, "/settings/account/sessions/revoke-all", "", "Sign out everywhere");
  return layout(frame, "Account", `${status(view.notice)}${alert(view.error)}${profile}<h2>Email</h2>${emailState}${emailForm}${password}${sessions}`);
}

export interface SecurityView {
  enabled: boolean;
  remaining: number;
  /** Enrolment under way: the secret to enter in an app, its otpauth URI, and the ticket that binds them. */
  enrolment?: { secret: string; otpauth_uri: string; ticket: string } | null;
  /** Recovery codes just made: shown this once. */
  codes?: string[] | null;
  error?: string | null;
  notice?: string | null;
}

const codeInput = (id: string) => input({ id, name: "code", label: "Code", autocomplete: "one-time-code", required: true, maxlength: 32, hint: "A code from your authenticator app, or a recovery code." });

export function securityPage(frame: Frame, view: SecurityView): string {
  const parts = [status(view.notice), alert(view.error)];
  if (view.codes?.length) {
    parts.push(
      `<h2>Your recovery codes</h2><p><strong>Save these now: they are shown only this once.</strong> Each signs you in once if you lose your authenticator app.</p>`,
      `<ol>${view.codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join("")}</ol>`,
    );
  }
  if (view.enrolment) {
    const e = view.enrolment;
    parts.push(
      `<h2>Set up two-factor authentication</h2>`,
      `<p>Add this key to your authenticator app (or paste the address into an app that takes one), then enter the code it shows.</p>`,
      `<dl><dt>Key</dt><dd><code>${escapeHtml(e.secret)}</code></dd><dt>Address</dt><dd><code>${escapeHtml(e.otpauth_uri)}</code></dd></dl>`,
      form(frame, "/settings/security/2fa/confirm", hidden("secret", e.secret) + hidden("otpauth_uri", e.otpauth_uri) + hidden("ticket", e.ticket) + input({ id: "code", label: "Code from the app", autocomplete: "one-time-code", required: true, maxlength: 32, inputmode: "numeric" }), "Turn on"),
    );
  } else if (view.enabled) {
    parts.push(
      `<h2>Two-factor authentication is on</h2><p>Signing in asks for a code from your authenticator app. Recovery codes left: ${view.remaining}.</p>`,
      `<h3>New recovery codes</h3><p>Replaces every recovery code you have.</p>`,
      form(frame, "/settings/security/2fa/recovery-codes", codeInput("regenerate-code"), "Make new recovery codes"),
      `<h3>Turn off</h3>`,
      form(frame, "/settings/security/2fa/disable", codeInput("disable-code"), "Turn off two-factor authentication"),
    );
  } else {
    parts.push(
      `<h2>Two-factor authentication is off</h2><p>With it on, signing in also asks for a code from an authenticator app on your phone.</p>`,
      form(frame, "/settings/security/2fa/enroll", "", "Set up two-factor authentication"),
    );
  }
  return layout(frame, "Security", parts.join(""));
}

/**
 * What a page says after a redirect (`?notice=<key>`): fixed texts by key, so that the address
 * can never make a page say something of its sender's choosing.
 */
const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  "signed-out-everywhere": "You are signed out on every browser.",
  "password-reset": "Your new password is set. Sign in with it.",
  "link-sent": "If that account has a confirmed email address, a sign-in link is on its way. It works for 15 minutes.",
  "reset-sent": "If that account has a confirmed email address, a reset link is on its way. It works for an hour.",
  welcome: "Welcome! Your account is ready.",
  "set-password": "You are signed in. Set a password so that you can sign in again without a link.",
  "password-changed": "Your password is changed. Other browsers were signed out.",
  "email-sent": "If that address can be used, a confirmation link is on its way to it.",
  "session-ended": "That browser is signed out.",
  "2fa-off": "Two-factor authentication is off.",
};

export const noticeText = (key: string | undefined): string | null => (key && Object.hasOwn(NOTICES, key) ? NOTICES[key] : null);
