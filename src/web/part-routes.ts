// Taking part as a signed-in person (docs/decisions.md §154-§158): writing a post (/submit),
// commenting and replying, voting, reacting, bookmarking, voting in a poll, following, the
// notifications page and direct messages. Each form calls the same feature service as the API's
// route, as the signed-in caller, charged to the same rate limits; a form answers 303 back to the
// page it came from, a refusal re-renders the form (or an error page) with the service's status.
import { Elysia, t } from "elysia";
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import { isUuid } from "../core/ids";
import { addBookmark, removeBookmark } from "../features/bookmarks/service";
import { getVisibleComment } from "../features/comments/service";
import * as colonies from "../features/colonies/service";
import * as follows from "../features/follows/service";
import * as direct from "../features/messages/direct";
import * as notifications from "../features/notifications/service";
import { notificationsOut } from "../features/notifications/views";
import * as polls from "../features/polls/service";
import * as posts from "../features/posts/service";
import { createComment } from "../features/comments/service";
import { summary, toggleReaction } from "../features/reactions/service";
import { castVote } from "../features/votes/service";
import { charge, rateLimitPlugin, subjectOf } from "../http/rate-limit";
import { refusedPage } from "./account-routes";
import { postHref, userHref } from "./components";
import { sync } from "./layout";
import { groupItems, GroupsSection } from "./pages/groups";
import { CommentActionPage, type CommentView, ConversationPage, ConversationsPage, notificationHref, NotificationsPage, ProfileForm, SUBMIT_TYPES, SubmitPage, type SubmitType, type SubmitValues } from "./pages/part";
import { layout } from "./account-layout";
import { AVATAR_NOTICES } from "./avatar-routes";
import { avatarView } from "./pages/avatar-form";
import { findById, updateProfile } from "../features/users/service";
import { refusedAction } from "./respond";
import { failure, field, isSignedIn, page, seeOther, toSignIn, webSession, type SignedInWeb, type Web } from "./session";
import { visitOf } from "./visit";

const PAGE = { detail: { hide: true } };
const FORM = { parse: "none" as const, detail: { hide: true } };
const NOTIFICATIONS_PER_PAGE = 30;
const MESSAGES_SHOWN = 100;

/** What /settings/profile?notice= names (the picture's from avatar-routes.ts). */
const PROFILE_NOTICES: Record<string, string> = { saved: "Your profile is saved.", ...AVATAR_NOTICES };

const ById = t.Object({ id: t.String() });
const ByName = t.Object({ username: t.String() });

export const partRoutes = (ctx: Ctx) => {
  const signIn = toSignIn;
  const visit = (request: Request) => visitOf(ctx, request);

  const refused = (web: Web, request: Request, err: unknown) => refusedAction(ctx, web, request, err);

  /** Runs an action of a signed-in viewer: charged to `limits`, answered with a 303 to where `act` says. */
  function action(web: Web, request: Request, back: string, limits: string[], act: (w: SignedInWeb) => string): Response {
    if (!isSignedIn(web)) return signIn(web, back);
    try {
      if (limits.length) charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), limits);
      return seeOther(web, act(web));
    } catch (err) {
      return refused(web, request, err);
    }
  }

  const postPath = (id: string) => postHref(id.toLowerCase());
  const uuidOr404 = (id: string) => {
    if (!isUuid(id)) throw new ApiError(404, "NOT_FOUND", "Not found");
    return id.toLowerCase();
  };

  function submitForm(web: SignedInWeb, request: Request, values: SubmitValues, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const list = colonies.listColonies(ctx, web.viewer.caller, {}, { limit: 100, offset: 0 }).items;
    return page(web, sync(SubmitPage({ visit: visit(request), colonies: list, values, error })), status, headers);
  }

  function notificationsPage(web: SignedInWeb, request: Request, pageNo: number) {
    const userId = web.viewer.user.id;
    const { items, total } = notifications.listNotifications(ctx, userId, {}, { limit: NOTIFICATIONS_PER_PAGE, offset: (pageNo - 1) * NOTIFICATIONS_PER_PAGE });
    const shown = notificationsOut(ctx, items).map((n, i) => ({ id: n.id, message: n.message, isRead: n.is_read, createdAt: items[i].createdAt, href: notificationHref(n) }));
    const unread = notifications.unreadCount(ctx, userId);
    return page(web, sync(NotificationsPage({ visit: visit(request), items: shown, unread, page: pageNo, hasMore: pageNo * NOTIFICATIONS_PER_PAGE < total })));
  }

  function conversationsPage(web: SignedInWeb, request: Request, status = 200, error: string | null = null, to?: string) {
    const { items } = direct.list(ctx, web.viewer.caller, false, { limit: 100, offset: 0 });
    const shown = items
      .filter((c) => !c.is_group && c.other_user)
      .map((c) => ({ username: c.other_user!.username, displayName: c.other_user!.display_name || null, lastAt: Date.parse(c.last_message_at!), unread: c.unread_count, preview: c.last_message_preview }));
    const v = visit(request);
    return page(web, sync(ConversationsPage({ visit: v, items: shown, error, to, children: GroupsSection({ csrf: v.csrf ?? "", ...groupItems(items) }) })), status);
  }

  function conversationPage(web: SignedInWeb, request: Request, username: string, status = 200, error: string | null = null, draft?: string) {
    const open = direct.open(ctx, web.viewer.caller, username, { limit: MESSAGES_SHOWN, offset: 0 });
    const me = web.viewer.user.id;
    const items = open.messages.map((m) => ({ id: m.id, mine: m.sender?.id === me, sender: m.sender?.username ?? "[deleted]", body: m.body, createdAt: Date.parse(m.created_at!), deleted: m.deleted }));
    const peer = { username: open.other_user.username, displayName: open.other_user.display_name || null };
    return page(web, sync(ConversationPage({ visit: visit(request), peer, conversationId: open.id, items, error, draft })), status);
  }

  function profilePage(web: SignedInWeb, values: { displayName: string; bio: string }, status = 200, more: { error?: string | null; notice?: string | null } = {}, headers: Record<string, string> = {}) {
    return page(web, layout(web, "Profile", sync(ProfileForm({ csrf: web.csrf, ...values, ...more, avatar: avatarView(web.viewer.user) }))), status, headers);
  }

  return (
    new Elysia()
      .use(rateLimitPlugin(ctx))
      .use(webSession(ctx, refusedPage))
      // ---- writing a post
      .get(
        "/submit",
        ({ web, request, query }) => {
          if (!isSignedIn(web)) return signIn(web, "/submit");
          const colony = typeof query.colony === "string" ? query.colony.toLowerCase() : "";
          return submitForm(web, request, { colony, post_type: "discussion", title: "", body: "", tags: "" });
        },
        PAGE,
      )
      .post(
        "/submit",
        ({ web, request }) => {
          if (!isSignedIn(web)) return signIn(web, "/submit");
          let values: SubmitValues = { colony: "", post_type: "discussion", title: "", body: "", tags: "" };
          try {
            values = { colony: field(web, "colony", 100), post_type: field(web, "post_type", 30), title: field(web, "title", 300), body: field(web, "body", 50_000), tags: field(web, "tags", 300) };
            if (!(values.post_type in SUBMIT_TYPES)) throw new ApiError(400, "INVALID_INPUT", "Choose one of the post types offered");
            charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["create_post"]);
            const tags = values.tags
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean);
            const row = posts.createPost(ctx, web.viewer.caller, { colony: values.colony, post_type: values.post_type as SubmitType, title: values.title, body: values.body, tags, client: "web" });
            return seeOther(web, postHref(row.id));
          } catch (err) {
            const f = failure(err);
            return submitForm(web, request, values, f.status, f.message, f.headers);
          }
        },
        FORM,
      )
      // ---- on a post
      .post(
        "/post/:id/comment",
        ({ web, request, params }) =>
          action(web, request, postPath(params.id), ["create_comment"], (w) => {
            const parent = field(w, "parent_id", 64);
            const c = createComment(ctx, w.viewer.caller, uuidOr404(params.id), { body: field(w, "body", 10_000), parent_id: parent || null, client: "web" });
            return `${postHref(c.postId)}#comment-${c.id}`;
          }),
        { params: ById, ...FORM },
      )
      .post(
        "/post/:id/vote",
        ({ web, request, params }) =>
          action(web, request, postPath(params.id), ["vote_hourly"], (w) => {
            const id = uuidOr404(params.id);
            castVote(ctx, w.viewer.caller, "post", id, voteValue(field(w, "value", 2)));
            return postHref(id);
          }),
        { params: ById, ...FORM },
      )
      .post(
        "/post/:id/react",
        ({ web, request, params }) =>
          action(web, request, postPath(params.id), ["reaction"], (w) => {
            const id = uuidOr404(params.id);
            toggleReaction(ctx, w.viewer.caller, { post_id: id, emoji: field(w, "emoji", 32) });
            return postHref(id);
          }),
        { params: ById, ...FORM },
      )
      .post(
        "/post/:id/bookmark",
        ({ web, request, params }) =>
          action(web, request, postPath(params.id), ["bookmark"], (w) => {
            const id = uuidOr404(params.id);
            if (field(w, "do", 10) === "remove") {
              try {
                removeBookmark(ctx, w.viewer.caller, id);
              } catch (err) {
                // Already gone: what the person asked for is true.
                if (!(err instanceof ApiError && err.status === 404)) throw err;
              }
            } else addBookmark(ctx, w.viewer.caller, id);
            return postHref(id);
          }),
        { params: ById, ...FORM },
      )
      .post(
        "/post/:id/poll",
        ({ web, request, params }) =>
          action(web, request, postPath(params.id), ["poll_vote"], (w) => {
            const id = uuidOr404(params.id);
            polls.vote(ctx, w.viewer.caller, id, w.form.getAll("option").slice(0, 100));
            return `${postHref(id)}#poll-h`;
          }),
        { params: ById, ...FORM },
      )
      // ---- on a comment
      .get("/comment/:id/reply", ({ web, request, params }) => commentActionPage(web, request, params.id, "reply"), { params: ById, ...PAGE })
      .get("/comment/:id/react", ({ web, request, params }) => commentActionPage(web, request, params.id, "react"), { params: ById, ...PAGE })
      .post(
        "/comment/:id/vote",
        ({ web, request, params }) =>
          action(web, request, "/", ["vote_hourly"], (w) => {
            const id = uuidOr404(params.id);
            castVote(ctx, w.viewer.caller, "comment", id, voteValue(field(w, "value", 2)));
            return commentHref(w, id);
          }),
        { params: ById, ...FORM },
      )
      .post(
        "/comment/:id/react",
        ({ web, request, params }) =>
          action(web, request, "/", ["reaction"], (w) => {
            const id = uuidOr404(params.id);
            toggleReaction(ctx, w.viewer.caller, { comment_id: id, emoji: field(w, "emoji", 32) });
            return commentHref(w, id);
          }),
        { params: ById, ...FORM },
      )
      // ---- people
      .post(
        "/u/:username/follow",
        ({ web, request, params }) =>
          action(web, request, userHref(params.username), [], (w) => {
            const name = params.username.trim().toLowerCase();
            if (field(w, "do", 10) === "unfollow") {
              try {
                follows.unfollow(ctx, w.viewer.caller, name);
              } catch (err) {
                if (!(err instanceof ApiError && err.code === "NOT_FOUND")) throw err;
              }
            } else {
              try {
                follows.follow(ctx, w.viewer.caller, name);
              } catch (err) {
                // Already following: what the person asked for is true.
                if (!(err instanceof ApiError && err.status === 409)) throw err;
              }
            }
            return userHref(name);
          }),
        { params: ByName, ...FORM },
      )
      // ---- profile
      .get(
        "/settings/profile",
        ({ web, query }) => {
          if (!isSignedIn(web)) return signIn(web, "/settings/profile");
          const u = web.viewer.user;
          return profilePage(web, { displayName: u.displayName ?? "", bio: u.bio ?? "" }, 200, { notice: Object.hasOwn(PROFILE_NOTICES, query.notice ?? "") ? PROFILE_NOTICES[query.notice!] : null });
        },
        PAGE,
      )
      .post(
        "/settings/profile",
        ({ web }) => {
          if (!isSignedIn(web)) return signIn(web, "/settings/profile");
          let values = { displayName: web.form.get("display_name") ?? "", bio: web.form.get("bio") ?? "" };
          try {
            // The limits of PUT /api/v1/users/me's schema (a longer value is a 422, as there).
            values = { displayName: field(web, "display_name", 100), bio: field(web, "bio", 1000) };
            updateProfile(ctx, web.viewer.user, { display_name: values.displayName, bio: values.bio.trim() ? values.bio : null });
            return seeOther(web, "/settings/profile?notice=saved");
          } catch (err) {
            const f = failure(err);
            return profilePage(web, values, f.status, { error: f.message }, f.headers);
          }
        },
        FORM,
      )
      // ---- notifications
      .get(
        "/notifications",
        ({ web, request, query }) => {
          if (!isSignedIn(web)) return signIn(web, "/notifications");
          const n = Number(query.page ?? 1);
          const pageNo = Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 1;
          return notificationsPage(web, request, pageNo);
        },
        PAGE,
      )
      .post(
        "/notifications/read-all",
        ({ web, request }) =>
          action(web, request, "/notifications", [], (w) => {
            notifications.markAllRead(ctx, w.viewer.user.id);
            return "/notifications";
          }),
        FORM,
      )
      .post(
        "/notifications/:id/read",
        ({ web, request, params }) =>
          action(web, request, "/notifications", [], (w) => {
            notifications.markRead(ctx, w.viewer.user.id, uuidOr404(params.id));
            return "/notifications";
          }),
        { params: ById, ...FORM },
      )
      // ---- direct messages
      .get(
        "/messages",
        ({ web, request, query }) => {
          if (!isSignedIn(web)) return signIn(web, "/messages");
          const to = typeof query.to === "string" ? query.to.trim().replace(/^@/, "") : "";
          if (to) return seeOther(web, `/messages/${encodeURIComponent(to.toLowerCase())}`);
          return conversationsPage(web, request);
        },
        PAGE,
      )
      .get(
        "/messages/:username",
        ({ web, request, params }) => {
          const path = `/messages/${encodeURIComponent(params.username)}`;
          if (!isSignedIn(web)) return signIn(web, path);
          try {
            return conversationPage(web, request, params.username.trim().toLowerCase());
          } catch (err) {
            return refused(web, request, err);
          }
        },
        { params: ByName, ...PAGE },
      )
      .post(
        "/messages/:username",
        ({ web, request, params }) => {
          const name = params.username.trim().toLowerCase();
          const path = `/messages/${encodeURIComponent(name)}`;
          if (!isSignedIn(web)) return signIn(web, path);
          let body = "";
          try {
            body = field(web, "body", 10_000);
            charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["send_message", "send_message_daily"]);
            const msg = direct.send(ctx, web.viewer.caller, name, { body });
            return seeOther(web, `${path}#message-${msg.id}`);
          } catch (err) {
            const f = failure(err);
            try {
              return conversationPage(web, request, name, f.status, f.message, body);
            } catch {
              return refused(web, request, err);
            }
          }
        },
        { params: ByName, ...FORM },
      )
  );

  /** A comment's reply form or reaction buttons on a page of their own (docs/decisions.md §180). */
  function commentActionPage(web: Web, request: Request, rawId: string, what: "reply" | "react"): Response {
    const path = `/comment/${encodeURIComponent(rawId)}/${what}`;
    if (!isSignedIn(web)) return signIn(web, path);
    try {
      const { comment, post } = getVisibleComment(ctx, web.viewer.caller, uuidOr404(rawId));
      const author = findById(ctx, comment.authorId);
      const view: CommentView = {
        id: comment.id,
        postId: post.id,
        postTitle: post.title,
        author: author ? author.displayName || author.username : "[deleted]",
        bodyHtml: comment.bodyHtml,
        // The reply page shows no reactions.
        counts: what === "react" ? summary(ctx, web.viewer.caller, "comment", comment.id) : [],
      };
      return page(web, sync(CommentActionPage({ visit: visit(request), comment: view, what })));
    } catch (err) {
      return refused(web, request, err);
    }
  }

  /** Where a comment is shown: its post's page, at the comment. */
  function commentHref(w: SignedInWeb, id: string): string {
    const { comment } = getVisibleComment(ctx, w.viewer.caller, id);
    return `${postHref(comment.postId)}#comment-${comment.id}`;
  }
};

function voteValue(raw: string): 1 | -1 {
  if (raw === "1") return 1;
  if (raw === "-1") return -1;
  throw new ApiError(400, "INVALID_INPUT", "A vote is up (1) or down (-1)");
}
