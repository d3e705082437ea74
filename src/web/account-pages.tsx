/** @jsxImportSource @kitajs/html */
// The account pages: sign up, sign in (both steps), sign-in links, password reset, and the account
// and security settings. Every value that came from a person or the database is escaped here;
// every field has a label; every form posts form-encoded with its CSRF token.
import type { Children } from "@kitajs/html";
import type { RegistrationMode } from "../config";
import type { SessionRow } from "../features/sessions/service";
import { Alert, CsrfField, escapeHtml, Form, Hidden, Input, layout, Status, When, type Frame } from "./account-layout";


const HOME_LINK = (
  <p>
    <a href="/">Home</a>
  </p>
);

/** A page of one message (a refused form, a sent mail), and `links` on from it. */
export function messagePage(frame: Frame, title: string, text: string, links: JSX.Element = HOME_LINK): string {
  return layout(
    frame,
    title,
    <>
      <p>{escapeHtml(text)}</p>
      {links}
    </>,
  );
}

/** The page of a sign-in or reset link that is not valid (any more), with where to ask for a new one. */
export function invalidLinkPage(frame: Frame, kind: "sign-in" | "reset"): string {
  const again =
    kind === "sign-in" ? (
      <p>
        <a href="/login">Sign in</a> or ask for a new link.
      </p>
    ) : (
      <p>
        <a href="/reset">Ask for a new link</a>.
      </p>
    );
  return messagePage(frame, "Link not valid", "This link is invalid, has expired or was already used.", again);
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
    return layout(
      frame,
      "Sign up",
      <>
        <p>This server is not taking sign-ups. Ask its operator for an account.</p>
        <p>
          Already have one? <a href="/login">Sign in</a>.
        </p>
      </>,
    );
  }
  const v = opts.values ?? {};
  return layout(
    frame,
    "Sign up",
    <>
      <Alert error={opts.error} />
      <Form frame={frame} action="/signup" button="Create account">
        <Input id="username" label="Username" value={v.username} autocomplete="username" required minlength={3} maxlength={32} hint="3 to 32 letters, digits, hyphens or underscores. It cannot be changed later." />
        <Input id="display_name" label="Display name (optional)" value={v.display_name} autocomplete="name" maxlength={100} />
        <Input id="email" label="Email address (optional)" type="email" value={v.email} autocomplete="email" maxlength={255} hint="We send a link to confirm it. Once confirmed you can sign in with it and reset your password." />
        <Input id="password" label="Password" type="password" autocomplete="new-password" required minlength={10} maxlength={256} hint="At least 10 characters. A few unrelated words make a good one." />
        {opts.mode === "invite" ? <Input id="invite" label="Invite code" value={v.invite} autocomplete="off" required maxlength={100} hint="Signing up here needs a code from an administrator." /> : ""}
      </Form>
      <p>
        Already have an account? <a href="/login">Sign in</a>.
      </p>
    </>,
  );
}

// ---- sign in

export function signInPage(frame: Frame, opts: { next: string; login?: string; error?: string | null; notice?: string | null; emailLinks: boolean; signUp: boolean }): string {
  return layout(
    frame,
    "Sign in",
    <>
      <Status notice={opts.notice} />
      <Alert error={opts.error} />
      <Form frame={frame} action="/login" button="Sign in">
        <Hidden name="next" value={opts.next} />
        <Input id="login" label="Username or email address" value={opts.login} autocomplete="username" required maxlength={255} />
        <Input id="password" label="Password" type="password" autocomplete="current-password" required maxlength={256} />
      </Form>
      <p>
        <a href="/reset">Forgot your password?</a>
        {opts.signUp ? (
          <>
            {" · "}
            <a href="/signup">Sign up</a>
          </>
        ) : (
          ""
        )}
      </p>
      {opts.emailLinks ? (
        <>
          <h2>Sign in with an email link</h2>
          <Form frame={frame} action="/login/email-link" button="Email me a link">
            <Input id="link-login" name="login" label="Username or email address" autocomplete="username" required maxlength={255} hint="We email a link that signs you in, to the address confirmed on your account." />
          </Form>
        </>
      ) : (
        ""
      )}
    </>,
  );
}

export function secondFactorPage(frame: Frame, opts: { ticket: string; next: string; error?: string | null }): string {
  return layout(
    frame,
    "Two-factor authentication",
    <>
      <Alert error={opts.error} />
      <Form frame={frame} action="/login/second-factor" button="Verify">
        <Hidden name="ticket" value={opts.ticket} />
        <Hidden name="next" value={opts.next} />
        <Input id="code" label="Code" autocomplete="one-time-code" required maxlength={32} hint="The 6-digit code from your authenticator app, or one of your recovery codes." />
      </Form>
      <p>
        <a href="/login">Start again</a>
      </p>
    </>,
  );
}

/** The confirmation page of a sign-in link: a button, so that mail scanners that open links use nothing. */
export function signInLinkPage(frame: Frame, opts: { token: string; username: string; operator: boolean }): string {
  return layout(
    frame,
    "Sign in with a link",
    <>
      <p>
        This link signs you in as <strong>{escapeHtml(opts.username)}</strong>
        {opts.operator ? ", made for you by this server's operator" : ""}. It works once.
      </p>
      <Form frame={frame} action={`/login/link/${opts.token}`} button="Sign in" />
    </>,
  );
}

// ---- password reset

export function resetRequestPage(frame: Frame, opts: { error?: string | null; notice?: string | null; mail: boolean }): string {
  return layout(
    frame,
    "Reset your password",
    <>
      <Status notice={opts.notice} />
      <Alert error={opts.error} />
      {opts.mail ? "" : <p>This server cannot send email. If you cannot sign in, ask its operator for a sign-in link.</p>}
      <Form frame={frame} action="/reset" button="Email me a reset link">
        <Input id="login" label="Username or email address" autocomplete="username" required maxlength={255} hint="We email a reset link to the address confirmed on your account." />
      </Form>
      <p>
        <a href="/login">Sign in</a>
      </p>
    </>,
  );
}

export function resetFormPage(frame: Frame, opts: { token: string; error?: string | null }): string {
  return layout(
    frame,
    "Choose a new password",
    <>
      <Alert error={opts.error} />
      <Form frame={frame} action={`/reset/${opts.token}`} button="Set password">
        <Input id="password" label="New password" type="password" autocomplete="new-password" required minlength={10} maxlength={256} hint="At least 10 characters. Every browser signed in to your account will be signed out." />
      </Form>
    </>,
  );
}

// ---- settings

/** The browser a session was signed in from, as its user agent says (cut short). */
function browserOf(s: SessionRow): string {
  const ua = s.userAgent ?? "Unknown browser";
  return ua.length > 120 ? `${ua.slice(0, 119)}…` : ua;
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
  const { email, email_verified } = view.email;
  return layout(
    frame,
    "Account",
    <>
      <Status notice={view.notice} />
      <Alert error={view.error} />
      <h2>Profile</h2>
      <dl>
        <dt>Username</dt>
        <dd>{escapeHtml(viewer.user.username)}</dd>
        <dt>Display name</dt>
        <dd>{escapeHtml(viewer.user.displayName)}</dd>
      </dl>
      <h2>Email</h2>
      {!email ? (
        <p>No email address is set. With a confirmed address you can sign in with it and reset a forgotten password.</p>
      ) : email_verified ? (
        <p>
          <strong>{escapeHtml(email)}</strong> is confirmed.
        </p>
      ) : (
        <p>
          <strong>{escapeHtml(email)}</strong> is not confirmed yet: open the link we sent to it, or send a new one.
        </p>
      )}
      <Form frame={frame} action="/settings/account/email" button={email && !email_verified ? "Send the link again" : "Send a confirmation link"}>
        <Input id="email" label="Email address" type="email" value={email ?? ""} autocomplete="email" required maxlength={255} />
      </Form>
      <h2>Password</h2>
      {view.hasPassword ? "" : <p>Your account has no password yet: set one to sign in without a link.</p>}
      <Form frame={frame} action="/settings/account/password" button={view.hasPassword ? "Change password" : "Set password"}>
        {view.hasPassword ? <Input id="current" label="Current password" type="password" autocomplete="current-password" required maxlength={256} /> : ""}
        <Input id="password" label="New password" type="password" autocomplete="new-password" required minlength={10} maxlength={256} hint="At least 10 characters. Other browsers signed in to your account will be signed out." />
      </Form>
      <h2>Where you are signed in</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Browser</th>
            <th scope="col">Address</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last seen</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {view.sessions.map((s) => {
            const current = s.id === viewer.sessionId;
            return (
              <tr>
                <td>
                  {escapeHtml(browserOf(s))}
                  {current ? (
                    <>
                      {" "}
                      <strong>(this browser)</strong>
                    </>
                  ) : (
                    ""
                  )}
                </td>
                <td>{escapeHtml(s.ip ?? "unknown")}</td>
                <td>
                  <When ms={s.createdAt} />
                </td>
                <td>
                  <When ms={s.lastSeenAt} />
                </td>
                <td>
                  <Form frame={frame} action={`/settings/account/sessions/${s.id}/revoke`} button={current ? "Sign out" : "Sign out this browser"} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Form frame={frame} action="/settings/account/sessions/revoke-all" button="Sign out everywhere" />
    </>,
  );
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

const CodeInput = ({ id }: { id: string }) => <Input id={id} name="code" label="Code" autocomplete="one-time-code" required maxlength={32} hint="A code from your authenticator app, or a recovery code." />;

function TwoFactor({ frame, view }: { frame: Frame; view: SecurityView }) {
  if (view.enrolment) {
    const e = view.enrolment;
    return (
      <>
        <h2>Set up two-factor authentication</h2>
        <p>Add this key to your authenticator app (or paste the address into an app that takes one), then enter the code it shows.</p>
        <dl>
          <dt>Key</dt>
          <dd>
            <code>{escapeHtml(e.secret)}</code>
          </dd>
          <dt>Address</dt>
          <dd>
            <code>{escapeHtml(e.otpauth_uri)}</code>
          </dd>
        </dl>
        <Form frame={frame} action="/settings/security/2fa/confirm" button="Turn on">
          <Hidden name="secret" value={e.secret} />
          <Hidden name="otpauth_uri" value={e.otpauth_uri} />
          <Hidden name="ticket" value={e.ticket} />
          <Input id="code" label="Code from the app" autocomplete="one-time-code" required maxlength={32} inputmode="numeric" />
        </Form>
      </>
    );
  }
  if (view.enabled) {
    return (
      <>
        <h2>Two-factor authentication is on</h2>
        <p>Signing in asks for a code from your authenticator app. Recovery codes left: {view.remaining}.</p>
        <h3>New recovery codes</h3>
        <p>Replaces every recovery code you have.</p>
        <Form frame={frame} action="/settings/security/2fa/recovery-codes" button="Make new recovery codes">
          <CodeInput id="regenerate-code" />
        </Form>
        <h3>Turn off</h3>
        <Form frame={frame} action="/settings/security/2fa/disable" button="Turn off two-factor authentication">
          <CodeInput id="disable-code" />
        </Form>
      </>
    );
  }
  return (
    <>
      <h2>Two-factor authentication is off</h2>
      <p>With it on, signing in also asks for a code from an authenticator app on your phone.</p>
      <Form frame={frame} action="/settings/security/2fa/enroll" button="Set up two-factor authentication" />
    </>
  );
}

export function securityPage(frame: Frame, view: SecurityView): string {
  return layout(
    frame,
    "Security",
    <>
      <Status notice={view.notice} />
      <Alert error={view.error} />
      {view.codes?.length ? (
        <>
          <h2>Your recovery codes</h2>
          <p>
            <strong>Save these now: they are shown only this once.</strong> Each signs you in once if you lose your authenticator app.
          </p>
          <ol>
            {view.codes.map((c) => (
              <li>
                <code>{escapeHtml(c)}</code>
              </li>
            ))}
          </ol>
        </>
      ) : (
        ""
      )}
      <TwoFactor frame={frame} view={view} />
    </>,
  );
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
