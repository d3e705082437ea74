/** @jsxImportSource @kitajs/html */
// Taking part as a signed-in person (docs/decisions.md §154): the small forms the reading pages
// carry for a signed-in viewer (vote, react, bookmark, comment, reply, poll vote, follow) and the
// pages of their own (/submit, /notifications, /messages, /messages/<username>). Every form is a
// plain POST with the page's CSRF token, answered with a 303 back to where it was sent from.
import { escapeHtml } from "@kitajs/html";
import type { ColonyRow } from "../../features/colonies/service";
import type { ReactionCount } from "../../features/reactions/service";
import { REACTIONS, REACTION_KEYS } from "../../features/reactions/tables";
import type * as polls from "../../features/polls/service";
import { formatInstant, plural, postHref, userHref } from "../components";
import { Page } from "../layout";
import { AvatarForm, type AvatarView } from "./avatar-form";
import type { Visit } from "../visit";

const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={csrf} />;

/** Up and down buttons; the viewer's current vote is pressed (sending the other one changes it, as the API does). */
export function VoteForm({ action, csrf, current, score, what }: { action: string; csrf: string; current: 1 | -1 | null; score: number; what: string }) {
  return (
    <form method="post" action={action} class="act vote">
      <Csrf csrf={csrf} />
      <button type="submit" name="value" value="1" aria-pressed={current === 1 ? "true" : "false"} title={`Upvote this ${what}`}>
        <span aria-hidden="true">▲</span>
        <span class="vh" safe>{`Upvote this ${what}`}</span>
      </button>
      <span class="score" safe>
        {plural(score, "point")}
      </span>
      <button type="submit" name="value" value="-1" aria-pressed={current === -1 ? "true" : "false"} title={`Downvote this ${what}`}>
        <span aria-hidden="true">▼</span>
        <span class="vh" safe>{`Downvote this ${what}`}</span>
      </button>
    </form>
  );
}

/** One button per reaction the API offers, with its count; the viewer's own reactions are pressed. */
export function ReactForm({ action, csrf, counts }: { action: string; csrf: string; counts: readonly ReactionCount[] }) {
  const by = new Map(counts.map((c) => [c.emoji, c]));
  return (
    <form method="post" action={action} class="act react" aria-label="Reactions">
      <Csrf csrf={csrf} />
      {REACTION_KEYS.map((k) => {
        const c = by.get(k);
        return (
          <button type="submit" name="emoji" value={k} aria-pressed={c?.user_reacted ? "true" : "false"} title={k.replaceAll("_", " ")}>
            <span aria-hidden="true">{REACTIONS[k]}</span>
            <span class="vh" safe>{k.replaceAll("_", " ")}</span>
            {c ? ` ${c.count}` : ""}
          </button>
        );
      })}
    </form>
  );
}

/**
 * The page's one form for the actions on its comments (docs/decisions.md §180): it holds the CSRF
 * token, and each comment's buttons belong to it (`form="act"`) and name their own action.
 */
export function ActForm({ csrf }: { csrf: string }) {
  return (
    <form id="act" method="post" hidden>
      <Csrf csrf={csrf} />
    </form>
  );
}

const reactionCounts = (counts: readonly ReactionCount[]): string =>
  counts.map((c) => (
    <>
      {" · "}
      <span aria-hidden="true" safe>
        {c.emoji_char}
      </span>
      <span class={c.user_reacted ? "mine" : undefined}>
        <span class="vh" safe>
          {c.emoji.replaceAll("_", " ")}
        </span>
        {escapeHtml(` ${c.count}`)}
        {c.user_reacted ? <span class="vh"> (yours)</span> : ""}
      </span>
    </>
  )).join("");

/**
 * A comment's actions: up and down buttons of the page's ActForm (the viewer's vote pressed), its
 * reaction counts on a link to the reaction buttons, and a link to the reply form. Nothing in it
 * but `vote` and the counts' `user_reacted` depends on the viewer, so a thread's list is rendered
 * once for every viewer without votes or reactions there.
 */
export function CommentActs({ id, score, counts, vote }: { id: string; score: number; counts: readonly ReactionCount[]; vote: 1 | -1 | null }) {
  // Kept short: a signed-in page repeats it for every comment (each byte is gzipped per answer).
  const action = `/comment/${id}/vote`;
  return (
    <div class="acts">
      <span class="act vote">
        <button form="act" formaction={action} name="value" value="1" aria-pressed={vote === 1 ? "true" : "false"} aria-label="Upvote">
          ▲
        </button>
        <span class="score" safe>
          {plural(score, "point")}
        </span>
        <button form="act" formaction={action} name="value" value="-1" aria-pressed={vote === -1 ? "true" : "false"} aria-label="Downvote">
          ▼
        </button>
      </span>
      <a class="react" href={`/comment/${id}/react`}>
        {"React"}
        {reactionCounts(counts) as "safe"}
      </a>
      <a class="reply" href={`/comment/${id}/reply`}>
        Reply
      </a>
    </div>
  );
}

export function BookmarkForm({ action, csrf, marked }: { action: string; csrf: string; marked: boolean }) {
  return (
    <form method="post" action={action} class="act">
      <Csrf csrf={csrf} />
      <input type="hidden" name="do" value={marked ? "remove" : "add"} />
      <button type="submit" aria-pressed={marked ? "true" : "false"}>
        {marked ? "Bookmarked" : "Bookmark"}
      </button>
    </form>
  );
}

export function FollowForm({ username, csrf, following }: { username: string; csrf: string; following: boolean }) {
  return (
    <form method="post" action={`${userHref(username)}/follow`} class="act">
      <Csrf csrf={csrf} />
      <input type="hidden" name="do" value={following ? "unfollow" : "follow"} />
      <button type="submit">{following ? "Unfollow" : "Follow"}</button>
    </form>
  );
}

/** The comment form under a post, or the reply form to a comment. */
export function CommentForm({ postId, csrf, parentId }: { postId: string; csrf: string; parentId?: string }) {
  const id = parentId ? `reply-${parentId}` : "comment-body";
  return (
    <form method="post" action={`${postHref(postId)}/comment`} class="write">
      <Csrf csrf={csrf} />
      {parentId ? <input type="hidden" name="parent_id" value={parentId} /> : ""}
      <label for={id}>{parentId ? "Your reply (Markdown)" : "Add a comment (Markdown)"}</label>
      <textarea id={id} name="body" rows={parentId ? "3" : "5"} required maxlength="10000"></textarea>
      <button type="submit">{parentId ? "Reply" : "Comment"}</button>
    </form>
  );
}

/** What the reply and reaction pages show of the comment they act on. */
export interface CommentView {
  id: string;
  postId: string;
  postTitle: string;
  author: string;
  bodyHtml: string;
  counts: readonly ReactionCount[];
}

/**
 * /comment/<id>/reply and /comment/<id>/react: the comment and its reply form or reaction buttons,
 * the pages a comment's links open without the script (which shows the same form in place).
 */
export function CommentActionPage({ visit, comment, what }: { visit: Visit; comment: CommentView; what: "reply" | "react" }) {
  const csrf = visit.csrf ?? "";
  const back = `${postHref(comment.postId)}#comment-${comment.id}`;
  const title = what === "reply" ? `Reply to ${comment.author}` : `React to ${comment.author}'s comment`;
  return (
    <Page title={title} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{title}</h1>
      <p class="meta">
        {"On "}
        <a href={back} safe>
          {comment.postTitle}
        </a>
      </p>
      <blockquote class="body">{comment.bodyHtml as "safe"}</blockquote>
      {what === "reply" ? <CommentForm postId={comment.postId} csrf={csrf} parentId={comment.id} /> : <ReactForm action={`/comment/${comment.id}/react`} csrf={csrf} counts={comment.counts} />}
      <p>
        <a href={back}>← Back to the comment</a>
      </p>
    </Page>
  );
}

/** A poll's options as a form (radio buttons, or checkboxes when several may be chosen). */
export function PollForm({ postId, csrf, results }: { postId: string; csrf: string; results: polls.PollResults }) {
  if (results.is_closed) return "";
  const type = results.multiple_choice ? "checkbox" : "radio";
  const chosen = new Set(results.user_option_ids);
  return (
    <form method="post" action={`${postHref(postId)}/poll`} class="write">
      <Csrf csrf={csrf} />
      <fieldset>
        <legend>{results.user_voted ? "Change your vote" : "Vote"}</legend>
        {results.options.map((o) => (
          <label>
            <input type={type} name="option" value={o.id} checked={chosen.has(o.id)} /> <span safe>{o.text}</span>
          </label>
        ))}
      </fieldset>
      <button type="submit">Vote</button>
    </form>
  );
}

// ---- /submit

export const SUBMIT_TYPES = { discussion: "Discussion", question: "Question", analysis: "Analysis" } as const;
export type SubmitType = keyof typeof SUBMIT_TYPES;

export interface SubmitValues {
  colony: string;
  post_type: string;
  title: string;
  body: string;
  tags: string;
}

export function SubmitPage({ visit, colonies, values, error }: { visit: Visit; colonies: readonly ColonyRow[]; values: SubmitValues; error?: string | null }) {
  return (
    <Page title="New post" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1>New post</h1>
        {error ? (
          <p role="alert">
            <strong safe>{error}</strong>
          </p>
        ) : (
          ""
        )}
        <form method="post" action="/submit" class="write">
          <Csrf csrf={visit.csrf ?? ""} />
          <p>
            <label for="colony">Colony</label>
            <br />
            <select id="colony" name="colony" required>
              {colonies.map((c) => (
                <option value={c.name} selected={c.name === values.colony} safe>
                  {c.displayName && c.displayName !== c.name ? `${c.displayName} (c/${c.name})` : `c/${c.name}`}
                </option>
              ))}
            </select>
          </p>
          <p>
            <label for="post_type">Type</label>
            <br />
            <select id="post_type" name="post_type">
              {Object.entries(SUBMIT_TYPES).map(([k, label]) => (
                <option value={k} selected={k === values.post_type}>
                  {label}
                </option>
              ))}
            </select>
          </p>
          <p>
            <label for="title">Title</label>
            <br />
            <input id="title" name="title" type="text" required minlength="3" maxlength="300" value={values.title} />
          </p>
          <p>
            <label for="body">Body</label>
            <br />
            <textarea id="body" name="body" rows="12" required maxlength="50000" aria-describedby="body-hint" safe>
              {values.body}
            </textarea>
            <br />
            <small id="body-hint">Markdown: **bold**, _italic_, [links](https://example.org), `code`, lists and quotes. Mention people with @username.</small>
          </p>
          <p>
            <label for="tags">Tags (optional)</label>
            <br />
            <input id="tags" name="tags" type="text" maxlength="300" value={values.tags} aria-describedby="tags-hint" />
            <br />
            <small id="tags-hint">Separated by commas, at most five.</small>
          </p>
          <p>
            <button type="submit">Post</button>
          </p>
        </form>
      </section>
    </Page>
  );
}

// ---- /notifications

interface NotificationItem {
  id: string;
  message: string;
  isRead: boolean;
  createdAt: number;
  href: string | null;
}

export function NotificationsPage({ visit, items, unread, page, hasMore }: { visit: Visit; items: readonly NotificationItem[]; unread: number; page: number; hasMore: boolean }) {
  const csrf = visit.csrf ?? "";
  return (
    <Page title="Notifications" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1>Notifications</h1>
      <p class="meta" safe>
        {`${plural(unread, "unread notification")}`}
      </p>
      {unread ? (
        <form method="post" action="/notifications/read-all" class="act">
          <Csrf csrf={csrf} />
          <button type="submit">Mark all read</button>
        </form>
      ) : (
        ""
      )}
      {items.length ? (
        <ol class="notes">
          {items.map((n) => (
            <li class={n.isRead ? "read" : "unread"}>
              <p>
                {n.isRead ? "" : <strong class="vh">Unread: </strong>}
                {n.href ? (
                  <a href={n.href} safe>
                    {n.message}
                  </a>
                ) : (
                  <span safe>{n.message}</span>
                )}
              </p>
              <p class="meta">
                <time datetime={new Date(n.createdAt).toISOString()} safe>
                  {formatInstant(n.createdAt)}
                </time>
              </p>
              {n.isRead ? (
                ""
              ) : (
                <form method="post" action={`/notifications/${n.id}/read`} class="act">
                  <Csrf csrf={csrf} />
                  <button type="submit">Mark read</button>
                </form>
              )}
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">No notifications.</p>
      )}
      <nav class="pager" aria-label="Pages">
        {page > 1 ? <a href={page > 2 ? `/notifications?page=${page - 1}` : "/notifications"}>← Newer</a> : ""}
        {hasMore ? <a href={`/notifications?page=${page + 1}`}>Older →</a> : ""}
      </nav>
    </Page>
  );
}

// ---- /messages

interface ConversationItem {
  username: string;
  displayName: string | null;
  lastAt: number;
  unread: number;
  preview: string | null;
}

/** `children`: more of the page after the direct conversations (the groups and invitations: pages/groups.tsx). */
export function ConversationsPage({ visit, items, error, to, children }: { visit: Visit; items: readonly ConversationItem[]; error?: string | null; to?: string; children?: JSX.Element }) {
  return (
    <Page title="Messages" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1>Messages</h1>
      <form method="get" action="/messages" class="write">
        <label for="to">Write to (username)</label>
        <input id="to" name="to" type="text" required maxlength="32" value={to ?? ""} />
        <button type="submit">Open</button>
      </form>
      {error ? (
        <p role="alert">
          <strong safe>{error}</strong>
        </p>
      ) : (
        ""
      )}
      {items.length ? (
        <ul class="convs">
          {items.map((c) => (
            <li>
              <a href={`/messages/${encodeURIComponent(c.username)}`} safe>
                {c.displayName ? `${c.displayName} (@${c.username})` : `@${c.username}`}
              </a>
              {c.unread ? <strong safe>{` ${plural(c.unread, "unread")}`}</strong> : ""}
              <br />
              <span class="meta">
                <time datetime={new Date(c.lastAt).toISOString()} safe>
                  {formatInstant(c.lastAt)}
                </time>
                {c.preview ? escapeHtml(` · ${c.preview}`) : ""}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No conversations yet.</p>
      )}
      {children as "safe"}
    </Page>
  );
}

export interface MessageItem {
  id: string;
  mine: boolean;
  sender: string;
  body: string;
  createdAt: number;
  deleted: boolean;
}

/**
 * Messages oldest first, the viewer's own marked, as plain pre-wrapped text (never HTML); shared by
 * a 1:1 conversation and a group's page. `anchors: false` for a second list of the same messages
 * (a group's pinned ones), whose items must not repeat the `message-<id>` anchors.
 */
export function MessageList({ items, anchors = true, label }: { items: readonly MessageItem[]; anchors?: boolean; label?: string }) {
  if (!items.length) return <p class="empty">No messages yet.</p>;
  return (
    <ol class="dm" aria-label={label}>
      {items.map((m) => (
        <li class={m.mine ? "mine" : "theirs"} id={anchors ? `message-${m.id}` : undefined}>
          <p class="meta">
            <span safe>{m.mine ? "You" : m.sender}</span>
            {" · "}
            <time datetime={new Date(m.createdAt).toISOString()} safe>
              {formatInstant(m.createdAt)}
            </time>
          </p>
          <p class="text" safe>
            {m.deleted ? "[deleted]" : m.body}
          </p>
        </li>
      ))}
    </ol>
  );
}

/** A conversation; `conversationId` (none before the first message) is for the page's live updates (assets/live.js). */
export function ConversationPage({ visit, peer, conversationId, items, error, draft }: { visit: Visit; peer: { username: string; displayName: string | null }; conversationId?: string | null; items: readonly MessageItem[]; error?: string | null; draft?: string }) {
  const shown = peer.displayName || peer.username;
  return (
    <Page title={`Messages with ${shown}`} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{`Messages with ${shown}`}</h1>
      <p class="meta">
        <a href="/messages">← All conversations</a>
        {" · "}
        <a href={userHref(peer.username)} safe>{`@${peer.username}`}</a>
      </p>
      <div data-live-dm={peer.username} data-conversation={conversationId ?? ""}>
        <MessageList items={items} />
      </div>
      {error ? (
        <p role="alert">
          <strong safe>{error}</strong>
        </p>
      ) : (
        ""
      )}
      <form method="post" action={`/messages/${encodeURIComponent(peer.username)}`} class="write">
        <Csrf csrf={visit.csrf ?? ""} />
        <label for="message-body">Message</label>
        <textarea id="message-body" name="body" rows="3" required maxlength="10000" safe>
          {draft ?? ""}
        </textarea>
        <button type="submit">Send</button>
      </form>
    </Page>
  );
}

/** Where a notification leads: its comment, its post, its group, its conversation's peer, or nowhere. */
export function notificationHref(n: { post_id: string | null; comment_id: string | null; conversation_id: string | null; actor: { username: string } | null; kind: string }): string | null {
  if (n.post_id && n.comment_id) return `${postHref(n.post_id)}#comment-${n.comment_id}`;
  if (n.post_id) return postHref(n.post_id);
  if (n.conversation_id && n.kind.startsWith("group_")) return `/groups/${n.conversation_id}`;
  if (n.conversation_id && n.actor) return `/messages/${encodeURIComponent(n.actor.username)}`;
  if (n.actor) return userHref(n.actor.username);
  return null;
}

// ---- /settings/profile

/** What the profile form shows: the saved values, or those a refused save sent. */
export interface ProfileValues {
  displayName: string;
  bio: string;
  /** Where the person's sales, paid work and tips are paid; empty for none. */
  lightningAddress: string;
}

/** The profile form's values as the person's account has them. */
export const savedProfile = (u: { displayName: string | null; bio: string | null; lightningAddress: string | null }): ProfileValues => ({
  displayName: u.displayName ?? "",
  bio: u.bio ?? "",
  lightningAddress: u.lightningAddress ?? "",
});

export function ProfileForm({
  csrf,
  displayName,
  bio,
  lightningAddress,
  error,
  notice,
  avatar,
}: ProfileValues & {
  csrf: string;
  error?: string | null;
  notice?: string | null;
  /** The picture section (avatar-form.tsx), when shown. */
  avatar?: AvatarView;
}) {
  return (
    <>
      {error ? (
        <p role="alert">
          <strong safe>{error}</strong>
        </p>
      ) : (
        ""
      )}
      {notice ? <p role="status" safe>{notice}</p> : ""}
      <form method="post" action="/settings/profile" class="write">
        <Csrf csrf={csrf} />
        <p>
          <label for="display_name">Display name</label>
          <br />
          <input id="display_name" name="display_name" type="text" required maxlength="100" value={displayName} autocomplete="name" />
        </p>
        <p>
          <label for="bio">Bio</label>
          <br />
          <textarea id="bio" name="bio" rows="5" maxlength="1000" aria-describedby="bio-hint" safe>
            {bio}
          </textarea>
          <br />
          <small id="bio-hint">Shown on your profile page. At most 1000 characters; leave it empty to have none.</small>
        </p>
        <p>
          <label for="lightning_address">Lightning address</label>
          <br />
          <input id="lightning_address" name="lightning_address" type="text" inputmode="email" autocomplete="off" maxlength="255" value={lightningAddress} aria-describedby="lightning-hint" />
          <br />
          <small id="lightning-hint">
            Where the marketplace pays you (name@domain): your sales, paid tasks and tips, less the platform's share. Leave it empty to have none.
          </small>
        </p>
        <p>
          <button type="submit">Save profile</button>
        </p>
      </form>
      {avatar ? <AvatarForm csrf={csrf} avatar={avatar} /> : ""}
    </>
  );
}
