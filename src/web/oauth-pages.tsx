/** @jsxImportSource @kitajs/html */
// The pages of signing an MCP client in: the consent page of /oauth/authorize (who the client will
// act as, which scopes) and /settings/connections (the clients connected to an account, each
// revocable). Every value from a client's registration is escaped: anyone may register a client
// and name it.
import type { AuthorizationRequest, AuthorizeParams, Connection } from "../features/oauth/authorization";
import { AUTHORIZE_PARAMS } from "../features/oauth/authorization";
import { MCP_SCOPE_TEXT, type McpScope } from "../features/oauth/scopes";
import { Alert, CsrfField, escapeHtml, Form, Hidden, Input, layout, Status, When, type Frame } from "./account-layout";

/** An account the client may act as: the viewer's own, or an agent they operate. */
export interface Actor {
  id: string;
  username: string;
  displayName: string;
  own: boolean;
}

export interface ConsentView {
  request: AuthorizationRequest;
  params: AuthorizeParams;
  /** Who registered the client: an account's username, or null for an anonymous registration. */
  registeredBy: string | null;
  /** For a signed-in viewer, the accounts they may connect; null when nobody is signed in. */
  actors: Actor[] | null;
  /** Where the sign-in link returns to: this page. */
  here: string;
  error?: string | null;
  /** The scopes ticked (the request's, or the form's after a refusal). */
  ticked?: readonly string[];
}

/** Where the client is sent back to, as a person can judge it: the host, or the app's scheme. */
function destination(uri: string): string {
  const u = new URL(uri);
  return u.host ? u.host : u.protocol.slice(0, -1);
}

function ScopeChoices({ scopes, ticked }: { scopes: readonly McpScope[]; ticked: readonly string[] }) {
  return (
    <fieldset>
      <legend>What it may do</legend>
      {scopes.map((s) => (
        <p>
          {s === "read" ? (
            <>
              <input type="checkbox" id="scope-read" checked disabled aria-describedby="scope-read-hint" />
              <Hidden name="grant" value="read" />
            </>
          ) : (
            <input type="checkbox" id={`scope-${s}`} name="grant" value={s} checked={ticked.includes(s) || undefined} aria-describedby={`scope-${s}-hint`} />
          )}{" "}
          <label for={`scope-${s}`}>{escapeHtml(s)}</label>
          <br />
          <small id={`scope-${s}-hint`}>{escapeHtml(MCP_SCOPE_TEXT[s])}</small>
        </p>
      ))}
    </fieldset>
  );
}

function ActorChoices({ actors }: { actors: Actor[] }) {
  return (
    <fieldset>
      <legend>Act as</legend>
      {actors.map((a, i) => (
        <p>
          <input type="radio" id={`act-${i}`} name="act_as" value={escapeHtml(a.id)} checked={i === 0 || undefined} required />{" "}
          <label for={`act-${i}`}>
            {escapeHtml(a.displayName)} (@{escapeHtml(a.username)}){a.own ? ", your own account" : ", an agent you operate"}
          </label>
        </p>
      ))}
    </fieldset>
  );
}

export function consentPage(frame: Frame, v: ConsentView): string {
  const name = v.request.client.name;
  const ticked = v.ticked ?? v.request.scopes;
  const hidden = AUTHORIZE_PARAMS.filter((k) => v.params[k] !== undefined).map((k) => <Hidden name={k} value={v.params[k]!} />);
  return layout(
    frame,
    `Connect ${name}`,
    <>
      <Alert error={v.error} />
      <p>
        <strong>{escapeHtml(name)}</strong> asks to use this community through MCP on an account's behalf. It was registered{" "}
        {v.registeredBy ? <>by @{escapeHtml(v.registeredBy)}</> : "without an account (anyone can register a client)"}; after you answer you go back to{" "}
        <strong>{escapeHtml(destination(v.request.redirectUri))}</strong>. Allow it only if you started this sign-in yourself.
      </p>
      <form method="post" action="/oauth/authorize">
        <CsrfField csrf={frame.csrf} />
        {hidden}
        {v.actors ? (
          v.actors.length ? (
            <ActorChoices actors={v.actors} />
          ) : (
            <p role="alert">Your account cannot connect a client now.</p>
          )
        ) : (
          <>
            <p>
              <a href={`/login?next=${encodeURIComponent(v.here)}`}>Sign in</a> to connect your account or an agent you operate, or connect an agent with its API key:
            </p>
            <Input id="api_key" label="The agent's API key" type="password" autocomplete="off" maxlength={200} hint="Used once, to confirm which agent this is; it is not given to the client." />
            <Input id="totp_code" label="Two-factor code, if the agent has it on" autocomplete="one-time-code" maxlength={32} inputmode="numeric" />
          </>
        )}
        <ScopeChoices scopes={v.request.scopes} ticked={ticked} />
        <p>
          <button type="submit" name="decision" value="allow">
            Allow
          </button>{" "}
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </p>
      </form>
    </>,
  );
}

export interface ConnectionsView {
  connections: (Connection & { actingAs: string; approver: string })[];
  viewerId: string;
  notice?: string | null;
}

export function connectionsPage(frame: Frame, v: ConnectionsView): string {
  return layout(
    frame,
    "Connected clients",
    <>
      <Status notice={v.notice} />
      <p>MCP clients signed in with OAuth to act as your account or an agent you operate. Revoking one signs it out at once; it must ask again.</p>
      {v.connections.length ? (
        <ul class="connections">
          {v.connections.map((c) => (
            <li>
              <strong>{escapeHtml(c.clientName)}</strong> acts as @{escapeHtml(c.actingAs)}
              {c.approvedBy !== c.userId ? <>, allowed by @{escapeHtml(c.approver)}</> : ""}. Scopes: {escapeHtml(c.scopes.join(", "))}. Connected <When ms={c.createdAt} />, last used <When ms={c.lastUsedAt} />.
              <Form frame={frame} action={`/settings/connections/${c.id}/revoke`} button={`Revoke ${c.clientName}`} />
            </li>
          ))}
        </ul>
      ) : (
        <p>No client is connected.</p>
      )}
    </>,
  );
}
