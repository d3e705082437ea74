/** @jsxImportSource @kitajs/html */
// The instance's settings (/admin/settings, site admins only) and the first run's page (/setup):
// plain forms, every value escaped (`safe`, or escapeHtml in attributes).
import { DEFAULT_DESCRIPTION, DESCRIPTION_MAX, NAME_MAX, REGISTRATION_CHOICES, RULES_MAX, type InstanceSettings } from "../../features/instance/service";
import { escapeHtml } from "../account-layout";
import { Page } from "../layout";
import { Csrf, Messages, type OpsFrame } from "./ops";

const MODES: Record<(typeof REGISTRATION_CHOICES)[number], string> = {
  open: "Open: anyone may sign up on the web.",
  invite: "By invitation: sign-up needs an invite code from an admin (made on the admin page or with colony admin invite).",
  closed: "Closed: nobody signs up on the web; accounts come from colony admin create-user.",
};

export interface SettingsView {
  settings: InstanceSettings;
  /** What the form shows: the saved values, or what was sent when it was refused. */
  values: { name: string; description: string; rules: string; registration: string };
  /** COLONY_REGISTRATION: the mode until an admin chooses one. */
  configured: string;
  error?: string | null;
  notice?: string | null;
}

export function SettingsPage({ frame, view }: { frame: OpsFrame; view: SettingsView }): JSX.Element {
  const v = view.values;
  const s = view.settings;
  return (
    <Page title="Instance settings" viewer={frame.viewer} csrf={frame.csrf} noindex>
      <div class="ops settings">
        <p class="meta">
          <a href="/admin">Admin</a> › Instance settings
        </p>
        <h1>Instance settings</h1>
        <Messages error={view.error} notice={view.notice} />
        <p>
          What every visitor sees: the name heads every page, and the description and rules are on the <a href="/about">About page</a>. Changes apply at
          once, in every process of the instance.
        </p>
        <form method="post" action="/admin/settings" class="stack">
          <Csrf csrf={frame.csrf} />
          <p>
            <label for="set-name">Name</label>
            <br />
            <input id="set-name" type="text" name="name" value={escapeHtml(v.name)} required maxlength={String(NAME_MAX)} autocomplete="off" aria-describedby="set-name-hint" />
            <br />
            <small id="set-name-hint" safe>{`At most ${NAME_MAX} characters.${s.set.name ? "" : " The built-in name is in use."}`}</small>
          </p>
          <p>
            <label for="set-description">Description</label>
            <br />
            <textarea id="set-description" name="description" rows="3" maxlength={String(DESCRIPTION_MAX)} placeholder={DEFAULT_DESCRIPTION} aria-describedby="set-description-hint" safe>
              {v.description}
            </textarea>
            <small id="set-description-hint">{`One or two sentences, at most ${DESCRIPTION_MAX} characters. Empty: the built-in description.`}</small>
          </p>
          <p>
            <label for="set-rules">Rules</label>
            <br />
            <textarea id="set-rules" name="rules" rows="8" maxlength={String(RULES_MAX)} aria-describedby="set-rules-hint" safe>
              {v.rules}
            </textarea>
            <small id="set-rules-hint">Plain text, shown as written. Empty: no rules are shown.</small>
          </p>
          <fieldset>
            <legend>Who may sign up</legend>
            {REGISTRATION_CHOICES.map((mode) => (
              <p class="choice">
                <input type="radio" id={`set-reg-${mode}`} name="registration" value={mode} checked={v.registration === mode} />{" "}
                <label for={`set-reg-${mode}`} safe>
                  {MODES[mode]}
                </label>
              </p>
            ))}
            <p class="meta" safe>
              {s.set.registration ? `Chosen here; COLONY_REGISTRATION (${view.configured}) no longer applies.` : `Now COLONY_REGISTRATION's mode (${view.configured}), until one is saved here.`}
            </p>
          </fieldset>
          <p>
            <button type="submit">Save settings</button>
          </p>
        </form>
      </div>
    </Page>
  );
}

export interface SetupView {
  /** The address the form posts to: /setup, or /setup/<token>. */
  action: string;
  values: { username: string; display_name: string };
  error?: string | null;
}

/** The first run's page: the form that makes the first site admin. */
export function SetupPage({ csrf, view }: { csrf: string; view: SetupView }): JSX.Element {
  return (
    <Page title="Set up this instance" csrf={csrf} noindex>
      <section class="account setup">
        <h1>Set up this instance</h1>
        <Messages error={view.error} />
        <p>This instance has no administrator yet. Create the first one: a person's account, signed in as soon as it is made, that runs this instance from the admin page.</p>
        <form method="post" action={escapeHtml(view.action)}>
          <Csrf csrf={csrf} />
          <p>
            <label for="setup-username">Username</label>
            <br />
            <input id="setup-username" type="text" name="username" value={escapeHtml(view.values.username)} required minlength="3" maxlength="32" autocomplete="username" aria-describedby="setup-username-hint" />
            <br />
            <small id="setup-username-hint">3 to 32 letters, digits, hyphens or underscores.</small>
          </p>
          <p>
            <label for="setup-display">Display name (optional)</label>
            <br />
            <input id="setup-display" type="text" name="display_name" value={escapeHtml(view.values.display_name)} maxlength="100" autocomplete="name" />
          </p>
          <p>
            <label for="setup-password">Password</label>
            <br />
            <input id="setup-password" type="password" name="password" required minlength="10" autocomplete="new-password" aria-describedby="setup-password-hint" />
            <br />
            <small id="setup-password-hint">At least 10 characters, not containing the username.</small>
          </p>
          <p>
            <button type="submit">Create the administrator</button>
          </p>
        </form>
        <p class="meta">This page answers only this machine's own browser, or whoever holds the link the server printed when it started. Once the administrator exists it is gone.</p>
      </section>
    </Page>
  );
}
