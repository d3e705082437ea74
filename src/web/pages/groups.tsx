/** @jsxImportSource @kitajs/html */
// Group conversations on the web (docs/decisions.md §166-§169): the groups and invitations section
// of /messages, the form of a new group (/groups/new), a group's page (/groups/<id>: its messages
// oldest first, a page at a time, the send form, the members, leaving, and for admins the group's
// title and description, inviting and removing members) and the invitation page a pending invitee
// sees at the same address. Every form is a plain POST with the page's CSRF token.
import { escapeHtml } from "@kitajs/html";
import { formatInstant, plural, userHref } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";
import { MessageList, type MessageItem } from "./part";

const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={csrf} />;

export const groupHref = (id: string) => `/groups/${id}`;

function Alert({ error }: { error?: string | null }) {
  if (!error) return "";
  return (
    <p role="alert">
      <strong safe>{error}</strong>
    </p>
  );
}

function Notice({ notice }: { notice?: string | null }) {
  return notice ? <p role="status" safe>{notice}</p> : "";
}

// ---- the groups section of /messages

interface GroupListItem {
  id: string;
  title: string;
  lastAt: number;
  unread: number;
  preview: string | null;
}

/** Accept and decline, as two buttons of one form. */
function AnswerForm({ id, csrf, title }: { id: string; csrf: string; title: string }) {
  return (
    <form method="post" action={`${groupHref(id)}/respond`} class="act">
      <Csrf csrf={csrf} />
      <button type="submit" name="answer" value="accept" aria-label={`Accept the invitation to ${title}`}>
        Accept
      </button>
      <button type="submit" name="answer" value="decline" aria-label={`Decline the invitation to ${title}`}>
        Decline
      </button>
    </form>
  );
}

export function GroupsSection({ csrf, groups, invites }: { csrf: string; groups: readonly GroupListItem[]; invites: readonly GroupListItem[] }) {
  return (
    <section id="groups" aria-labelledby="groups-h">
      <h2 id="groups-h">Groups</h2>
      <p>
        <a href="/groups/new">New group</a>
      </p>
      {invites.length ? (
        <>
          <h3>Invitations</h3>
          <ul class="convs">
            {invites.map((g) => (
              <li>
                <a href={groupHref(g.id)} safe>
                  {g.title}
                </a>
                <AnswerForm id={g.id} csrf={csrf} title={g.title} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        ""
      )}
      {groups.length ? (
        <ul class="convs" aria-label="Your groups">
          {groups.map((g) => (
            <li>
              <a href={groupHref(g.id)} safe>
                {g.title}
              </a>
              {g.unread ? <strong safe>{` ${plural(g.unread, "unread")}`}</strong> : ""}
              <br />
              <span class="meta">
                <time datetime={new Date(g.lastAt).toISOString()} safe>
                  {formatInstant(g.lastAt)}
                </time>
                {g.preview ? escapeHtml(` · ${g.preview}`) : ""}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No groups yet.</p>
      )}
    </section>
  );
}

// ---- /groups/new

export interface NewGroupValues {
  title: string;
  members: string;
  description: string;
}

export function NewGroupPage({ visit, values, error }: { visit: Visit; values: NewGroupValues; error?: string | null }) {
  return (
    <Page title="New group" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1>New group</h1>
        <p class="meta">
          <a href="/messages#groups">← All conversations</a>
        </p>
        <Alert error={error} />
        <form method="post" action="/groups/new" class="write">
          <Csrf csrf={visit.csrf ?? ""} />
          <label for="group-title">Title</label>
          <input id="group-title" name="title" type="text" required maxlength="100" value={values.title} />
          <label for="group-members">Members</label>
          <textarea id="group-members" name="members" rows="3" required maxlength="3000" aria-describedby="group-members-hint" safe>
            {values.members}
          </textarea>
          <small id="group-members-hint">Usernames, separated by commas, spaces or lines: 1 to 49 people. Each is invited and joins when they accept.</small>
          <label for="group-description">Description (optional)</label>
          <textarea id="group-description" name="description" rows="3" maxlength="500" safe>
            {values.description}
          </textarea>
          <button type="submit">Create group</button>
        </form>
      </section>
    </Page>
  );
}

// ---- /groups/<id>

interface GroupMember {
  username: string;
  displayName: string | null;
  isAdmin: boolean;
  isCreator: boolean;
  pending: boolean;
  isMe: boolean;
}

export interface GroupView {
  id: string;
  title: string;
  description: string | null;
  isAdmin: boolean;
  memberCount: number;
  pendingCount: number;
  messages: readonly MessageItem[];
  pinned: readonly MessageItem[];
  members: readonly GroupMember[];
  /** The page of messages shown: 1 is the newest. */
  page: number;
  hasOlder: boolean;
}

export interface GroupPageState {
  error?: string | null;
  notice?: string | null;
  /** What was typed in the send form (a refused message is kept). */
  draft?: string;
  /** What was typed in the settings form (a refused change is kept). */
  settings?: { title: string; description: string };
  /** What was typed in the invite form. */
  invitee?: string;
}

const pageHref = (id: string, page: number) => (page > 1 ? `${groupHref(id)}?page=${page}` : groupHref(id));

function MemberEntry({ group, m, csrf }: { group: GroupView; m: GroupMember; csrf: string }) {
  const name = m.displayName && m.displayName !== m.username ? `${m.displayName} (@${m.username})` : `@${m.username}`;
  const roles = [m.isMe ? "you" : "", m.isCreator ? "creator" : m.isAdmin ? "admin" : "", m.pending ? "invited" : ""].filter(Boolean);
  return (
    <li>
      <a href={userHref(m.username)} safe>
        {name}
      </a>
      {roles.map((r) => (
        <>
          {" "}
          <span class="b" safe>
            {r}
          </span>
        </>
      ))}
      {group.isAdmin && !m.isMe && !m.isCreator ? (
        <form method="post" action={`${groupHref(group.id)}/members/${encodeURIComponent(m.username)}/remove`} class="act">
          <Csrf csrf={csrf} />
          <button type="submit" safe>
            {m.pending ? `Withdraw the invitation of @${m.username}` : `Remove @${m.username}`}
          </button>
        </form>
      ) : (
        ""
      )}
    </li>
  );
}

export function GroupPage({ visit, group, state = {} }: { visit: Visit; group: GroupView; state?: GroupPageState }) {
  const csrf = visit.csrf ?? "";
  const base = groupHref(group.id);
  const settings = state.settings ?? { title: group.title, description: group.description ?? "" };
  return (
    <Page title={group.title} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{group.title}</h1>
      <p class="meta">
        <a href="/messages#groups">← All conversations</a>
        {" · "}
        <a href="#members-h" safe>
          {plural(group.memberCount, "member")}
        </a>
        {group.pendingCount ? escapeHtml(` · ${plural(group.pendingCount, "invitation")} open`) : ""}
      </p>
      {group.description ? (
        <p class="text" safe>
          {group.description}
        </p>
      ) : (
        ""
      )}
      <Notice notice={state.notice} />
      {group.pinned.length ? (
        <section aria-labelledby="pinned-h">
          <h2 id="pinned-h">Pinned</h2>
          <MessageList items={group.pinned} anchors={false} label="Pinned messages" />
        </section>
      ) : (
        ""
      )}
      <section aria-labelledby="messages-h">
        <h2 id="messages-h">Messages</h2>
        {group.hasOlder ? (
          <p>
            <a href={pageHref(group.id, group.page + 1)} rel="next">
              ← Older messages
            </a>
          </p>
        ) : (
          ""
        )}
        {group.page === 1 ? (
          // The newest messages: the page's script appends new ones as they arrive (assets/live.js).
          <div data-live-group={group.id}>
            <MessageList items={group.messages} label="Messages" />
          </div>
        ) : (
          <MessageList items={group.messages} label="Messages" />
        )}
        {group.page > 1 ? (
          <p>
            <a href={pageHref(group.id, group.page - 1)} rel="prev">
              Newer messages →
            </a>
          </p>
        ) : (
          ""
        )}
        <Alert error={state.error} />
        <form method="post" action={`${base}/send`} class="write">
          <Csrf csrf={csrf} />
          <label for="message-body">Message</label>
          <textarea id="message-body" name="body" rows="3" required maxlength="10000" aria-describedby="message-hint" safe>
            {state.draft ?? ""}
          </textarea>
          <small id="message-hint">Plain text. Mention members with @username, or everyone with @everyone.</small>
          <button type="submit">Send</button>
        </form>
      </section>
      <section aria-labelledby="members-h">
        <h2 id="members-h">Members</h2>
        <ul class="convs members">
          {group.members.map((m) => (
            <MemberEntry group={group} m={m} csrf={csrf} />
          ))}
        </ul>
        {group.isAdmin ? (
          <form method="post" action={`${base}/members`} class="write">
            <Csrf csrf={csrf} />
            <label for="invitee">Invite someone (username)</label>
            <input id="invitee" name="username" type="text" required maxlength="64" value={state.invitee ?? ""} />
            <button type="submit">Invite</button>
          </form>
        ) : (
          ""
        )}
      </section>
      {group.isAdmin ? (
        <section aria-labelledby="settings-h">
          <h2 id="settings-h">Title and description</h2>
          <form method="post" action={`${base}/edit`} class="write">
            <Csrf csrf={csrf} />
            <label for="settings-title">Title</label>
            <input id="settings-title" name="title" type="text" required maxlength="100" value={settings.title} />
            <label for="settings-description">Description</label>
            <textarea id="settings-description" name="description" rows="3" maxlength="500" aria-describedby="settings-description-hint" safe>
              {settings.description}
            </textarea>
            <small id="settings-description-hint">At most 500 characters; leave it empty to have none.</small>
            <button type="submit">Save</button>
          </form>
        </section>
      ) : (
        ""
      )}
      <section aria-labelledby="leave-h">
        <h2 id="leave-h">Leave</h2>
        <form method="post" action={`${base}/leave`} class="act">
          <Csrf csrf={csrf} />
          <button type="submit">Leave this group</button>
        </form>
      </section>
    </Page>
  );
}

// ---- the invitation, at /groups/<id> for a pending invitee

export function InvitationPage({ visit, id, title, inviter, invitedAt }: { visit: Visit; id: string; title: string; inviter: string | null; invitedAt: number | null }) {
  return (
    <Page title={`Invitation: ${title}`} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{`Invitation: ${title}`}</h1>
      <p>
        {inviter ? (
          <>
            <a href={userHref(inviter)} safe>{`@${inviter}`}</a>
            {" invited you to this group conversation"}
          </>
        ) : (
          "You are invited to this group conversation"
        )}
        {invitedAt ? (
          <>
            {" on "}
            <time datetime={new Date(invitedAt).toISOString()} safe>
              {formatInstant(invitedAt)}
            </time>
          </>
        ) : (
          ""
        )}
        . Its messages and members are shown once you accept.
      </p>
      <AnswerForm id={id} csrf={visit.csrf ?? ""} title={title} />
      <p class="meta">
        <a href="/messages#groups">← All conversations</a>
      </p>
    </Page>
  );
}

/** The groups and the open invitations among the rows of the conversations list (direct.list). */
export function groupItems(rows: readonly { id: string; is_group: boolean; title: string | null; invite_status: string; last_message_at: string | null; unread_count: number; last_message_preview: string | null }[]) {
  const of = (r: (typeof rows)[number]): GroupListItem => ({ id: r.id, title: r.title ?? "", lastAt: Date.parse(r.last_message_at!), unread: r.unread_count, preview: r.last_message_preview });
  const groups = rows.filter((r) => r.is_group);
  return { groups: groups.filter((r) => r.invite_status === "accepted").map(of), invites: groups.filter((r) => r.invite_status === "pending").map(of) };
}
