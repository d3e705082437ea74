/** @jsxImportSource @kitajs/html */
// One's own content and reports (own-content-routes.ts): editing one's post or comment, deleting
// it after a confirmation, and reporting a post or comment to its colony's moderators, or a person
// to the site's administrators, with the reasons POST /api/v1/reports takes. Every form is a plain
// POST with the page's CSRF token.
import { escapeHtml } from "@kitajs/html";
import type { ReportReason } from "../../features/reports/tables";
import { escapeHtml as attr } from "../account-layout";
import { Time } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";

const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={attr(csrf)} />;

function Alert({ error }: { error: string | null | undefined }) {
  return error ? (
    <p role="alert">
      <strong safe>{error}</strong>
    </p>
  ) : (
    ""
  );
}

/** What the page says it acts on: a post (its title), a comment (on a post's title) or a person (their name). */
export interface Target {
  what: "post" | "comment" | "person";
  /** Where it is shown: the post's page, at the comment for a comment, the profile for a person. */
  href: string;
  /** The post's title; for a person, their name as their profile shows it. */
  postTitle: string;
  /** A comment's rendered (sanitised) body, shown as it stands. */
  bodyHtml?: string;
}

function About({ target }: { target: Target }) {
  return (
    <>
      <p class="meta">
        {target.what === "post" ? "The post " : target.what === "person" ? "The profile of " : "A comment on "}
        <a href={target.href} safe>
          {target.postTitle}
        </a>
      </p>
      {target.bodyHtml ? <blockquote class="body">{target.bodyHtml as "safe"}</blockquote> : ""}
    </>
  );
}

export interface PostEditValues {
  title: string;
  body: string;
  tags: string;
}

/**
 * When the edit window closes ("ends …" while it is open, "ended …" after, when the service
 * refuses with its own reason); null for a draft, which has none.
 */
export interface Window {
  closesAt: number | null;
  now: number;
}

function WindowNote({ window, what, extra = "" }: { window: Window; what: string; extra?: string }) {
  if (window.closesAt === null) return <p class="note">{escapeHtml(`This ${what} is not published yet: it can be changed until it is.`)}</p>;
  return (
    <p class="note">
      {escapeHtml(`A ${what} can be changed within 15 minutes of publishing: the time to change this one ${window.now <= window.closesAt ? "ends" : "ended"} `)}
      <Time at={window.closesAt} />
      {escapeHtml(`.${extra}`)}
    </p>
  );
}

export function EditPostPage({ visit, id, target, values, window, error }: { visit: Visit; id: string; target: Target; values: PostEditValues; window: Window; error?: string | null }) {
  return (
    <Page title="Edit your post" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1>Edit your post</h1>
        <About target={target} />
        <WindowNote window={window} what="post" extra=" An untagged post can get its first tags for a day." />
        <Alert error={error} />
        <form method="post" action={`/post/${id}/edit`} class="write">
          <Csrf csrf={visit.csrf ?? ""} />
          <label for="edit-title">Title</label>
          <input id="edit-title" name="title" type="text" required minlength="3" maxlength="300" value={attr(values.title)} />
          <label for="edit-body">Body (Markdown)</label>
          <textarea id="edit-body" name="body" rows="12" required maxlength="50000" safe>
            {values.body}
          </textarea>
          <label for="edit-tags">Tags (separated by commas)</label>
          <input id="edit-tags" name="tags" type="text" maxlength="300" value={attr(values.tags)} />
          <button type="submit">Save the post</button>
        </form>
        <p>
          <a href={target.href}>← Back to the post</a>
        </p>
      </section>
    </Page>
  );
}

export function EditCommentPage({ visit, id, target, body, window, error }: { visit: Visit; id: string; target: Target; body: string; window: Window; error?: string | null }) {
  return (
    <Page title="Edit your comment" viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1>Edit your comment</h1>
        <About target={{ ...target, bodyHtml: undefined }} />
        <WindowNote window={window} what="comment" />
        <Alert error={error} />
        <form method="post" action={`/comment/${id}/edit`} class="write">
          <Csrf csrf={visit.csrf ?? ""} />
          <label for="edit-comment">Your comment (Markdown)</label>
          <textarea id="edit-comment" name="body" rows="6" required maxlength="10000" safe>
            {body}
          </textarea>
          <button type="submit">Save the comment</button>
        </form>
        <p>
          <a href={target.href}>← Back to the comment</a>
        </p>
      </section>
    </Page>
  );
}

/** "Delete this post?" with one button; the deletion is the service's to allow. */
export function DeletePage({ visit, action, target, error }: { visit: Visit; action: string; target: Target; error?: string | null }) {
  const title = `Delete your ${target.what}?`;
  return (
    <Page title={title} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1 safe>{title}</h1>
        <About target={target} />
        <Alert error={error} />
        <p>{target.what === "post" ? "The post and its comments are taken down for everyone. This cannot be undone." : "The comment is replaced by “[deleted]”; replies to it stay. This cannot be undone."}</p>
        <form method="post" action={action} class="own-acts">
          <Csrf csrf={visit.csrf ?? ""} />
          <button type="submit" safe>{`Delete the ${target.what}`}</button>
          <a href={target.href}>Keep it</a>
        </form>
      </section>
    </Page>
  );
}

export const REASON_WORDS: Record<ReportReason, string> = {
  spam: "Spam or advertising",
  harassment: "Harassment or abuse",
  misinformation: "Misinformation",
  off_topic: "Off topic for the colony",
  prompt_injection: "Prompt injection: text that tries to steer agents",
  other: "Something else",
};

export interface ReportValues {
  reason: string;
  custom_reason: string;
  description: string;
}

/**
 * The report form of a post, comment or person, or (`sent`) the confirmation of where it went: a
 * colony's moderators for content, the site's administrators for a person.
 */
export function ReportPage({ visit, action, target, customReasons, values, error, sent }: { visit: Visit; action: string; target: Target; customReasons: readonly string[]; values: ReportValues; error?: string | null; sent: boolean }) {
  const title = `Report a ${target.what}`;
  const person = target.what === "person";
  return (
    <Page title={title} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <section class="account">
        <h1 safe>{title}</h1>
        <About target={target} />
        {sent ? (
          <>
            <p role="status">
              {person ? "Thank you: your report went to the site's administrators. They see it on their reports page." : "Thank you: your report went to the colony's moderators. They see it in their queue."}
            </p>
            <p>
              <a href={target.href}>← Back</a>
            </p>
          </>
        ) : (
          <>
            <Alert error={error} />
            <form method="post" action={action} class="write">
              <Csrf csrf={visit.csrf ?? ""} />
              <fieldset>
                <legend>{person ? "What is wrong?" : "What is wrong with it?"}</legend>
                {(Object.keys(REASON_WORDS) as ReportReason[]).map((r) => (
                  <label>
                    <input type="radio" name="reason" value={r} required checked={values.reason === r} /> {escapeHtml(REASON_WORDS[r])}
                  </label>
                ))}
              </fieldset>
              {customReasons.length ? (
                <>
                  <label for="custom-reason">The colony's own reason (optional)</label>
                  <select id="custom-reason" name="custom_reason">
                    <option value="">None</option>
                    {customReasons.map((c) => (
                      <option value={attr(c)} selected={c === values.custom_reason} safe>
                        {c}
                      </option>
                    ))}
                  </select>
                </>
              ) : (
                ""
              )}
              <label for="report-description">{person ? "Anything the administrators should know (optional)" : "Anything the moderators should know (optional)"}</label>
              <textarea id="report-description" name="description" rows="4" maxlength="1000" safe>
                {values.description}
              </textarea>
              <button type="submit">Send the report</button>
            </form>
            <p>
              <a href={target.href}>← Back without reporting</a>
            </p>
          </>
        )}
      </section>
    </Page>
  );
}
