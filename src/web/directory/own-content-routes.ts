// One's own posts and comments on the web, and reports: /post/<id>/edit and /comment/<id>/edit
// (PUT /api/v1/posts/{id} and /comments/{id}), /post/<id>/delete and /comment/<id>/delete (their
// DELETE, after a confirmation page), and /post/<id>/report, /comment/<id>/report and
// /u/<name>/report (POST /api/v1/reports; a person goes to the site's administrators). Each POST calls the same service function as the API's route, as the
// signed-in person, charged to the same limit, and answers a 303; a refusal (the edit window over,
// someone else's post, a report already pending) shows the form again with the service's reason
// and status. The windows themselves are the services' rule: the pages only stop offering the
// links once they are over (pages/post.tsx).
import { forbidden, invalid } from "../../core/errors";
import * as colonies from "../../features/colonies/service";
import { deleteComment, EDIT_WINDOW_MS as COMMENT_EDIT_WINDOW_MS, getVisibleComment, updateComment } from "../../features/comments/service";
import { deletePost, EDIT_WINDOW_MS, getVisiblePost, updatePost } from "../../features/posts/service";
import { createReport } from "../../features/reports/service";
import { REPORT_REASONS, type ReportReason } from "../../features/reports/tables";
import { charge, subjectOf } from "../../http/rate-limit";
import * as users from "../../features/users/service";
import { colonyHref, postHref, userHref } from "../components";
import { sync } from "../layout";
import { DeletePage, EditCommentPage, EditPostPage, ReportPage, type PostEditValues, type ReportValues, type Target } from "../pages/own-content";
import { refusedAction } from "../respond";
import { ById, FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, type SignedInWeb, type Web } from "../session";
import { visitOf } from "../visit";
import { uuidOr404 } from "../part/actions";
import type { WebArea } from "../web-app";
import { ApiError } from "../../core/errors";

type Kind = "post" | "comment";
const EMPTY_REPORT: ReportValues = { reason: "", custom_reason: "", description: "" };

/** Tags as the submit form takes them: separated by commas. */
const tagList = (raw: string) =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export const ownContentRoutes: WebArea = (ctx, app) => {
  /** What a page acts on, as the caller may see it (404 otherwise), with the colony it is in. */
  function targetOf(w: SignedInWeb, kind: Kind, id: string) {
    if (kind === "post") {
      const { post, colony } = getVisiblePost(ctx, w.viewer.caller, id);
      const target: Target = { what: "post", href: postHref(post.id), postTitle: post.title };
      return { target, colony, authorId: post.authorId, post, comment: null };
    }
    const { comment, post, colony } = getVisibleComment(ctx, w.viewer.caller, id);
    const target: Target = { what: "comment", href: `${postHref(post.id)}#comment-${comment.id}`, postTitle: post.title, bodyHtml: comment.bodyHtml };
    return { target, colony, authorId: comment.authorId, post, comment };
  }

  /**
   * A page of one post or comment for a signed-in person: `show` renders it for the id; anything
   * it refuses (not visible: the 404 page) is the error page. Visitors are sent to sign in.
   */
  function ownPage(web: Web, request: Request, kind: Kind, rawId: string, what: string, show: (w: SignedInWeb, id: string) => Response): Response {
    if (!isSignedIn(web)) return toSignIn(web, `/${kind}/${encodeURIComponent(rawId)}/${what}`);
    try {
      return show(web, uuidOr404(rawId));
    } catch (err) {
      return refusedAction(ctx, web, request, err);
    }
  }

  /**
   * A form of such a page: charged to `limits`, then `act`, answered 303 to where it says; a
   * refusal shows the page again (`again`) with the service's message and status.
   */
  function ownForm(web: Web, request: Request, kind: Kind, rawId: string, what: string, limits: string[], act: (w: SignedInWeb, id: string) => string, again: (w: SignedInWeb, id: string, status: number, error: string, headers: Record<string, string>) => Response): Response {
    return ownPage(web, request, kind, rawId, what, (w, id) => {
      try {
        if (limits.length) charge(ctx, request, subjectOf(w.viewer.caller, w.client.ip), limits);
        return seeOther(w, act(w, id));
      } catch (err) {
        const f = failure(err);
        return again(w, id, f.status, f.message, f.headers);
      }
    });
  }

  const typed = (w: Web, name: string) => w.form.getAll(name)[0] ?? "";

  // ---- editing

  function editPostPage(w: SignedInWeb, request: Request, id: string, values: PostEditValues | null, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const t = targetOf(w, "post", id);
    if (t.authorId !== w.viewer.user.id) throw forbidden("Only the author can edit this post");
    const shown = values ?? { title: t.post.title, body: t.post.body, tags: t.post.tags.join(", ") };
    const window = { closesAt: t.post.state === "published" ? t.post.createdAt + EDIT_WINDOW_MS : null, now: ctx.clock.now() };
    return page(w, sync(EditPostPage({ visit: visitOf(ctx, request), id, target: t.target, values: shown, window, error })), status, headers);
  }

  function editCommentPage(w: SignedInWeb, request: Request, id: string, body: string | null, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const t = targetOf(w, "comment", id);
    if (t.authorId !== w.viewer.user.id) throw forbidden("Only the author can edit this comment");
    const window = { closesAt: t.comment!.createdAt + COMMENT_EDIT_WINDOW_MS, now: ctx.clock.now() };
    return page(w, sync(EditCommentPage({ visit: visitOf(ctx, request), id, target: t.target, body: body ?? t.comment!.body, window, error })), status, headers);
  }

  // ---- deleting and reporting

  function deletePage(w: SignedInWeb, request: Request, kind: Kind, id: string, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const t = targetOf(w, kind, id);
    return page(w, sync(DeletePage({ visit: visitOf(ctx, request), action: `/${kind}/${id}/delete`, target: t.target, error })), status, headers);
  }

  function reportPage(w: SignedInWeb, request: Request, kind: Kind, id: string, values: ReportValues, sent: boolean, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const t = targetOf(w, kind, id);
    const customReasons = colonies.settingsOf(t.colony).report_reasons ?? [];
    return page(w, sync(ReportPage({ visit: visitOf(ctx, request), action: `/${kind}/${id}/report`, target: t.target, customReasons, values, error, sent })), status, headers);
  }

  function report(w: SignedInWeb, kind: Kind, id: string): string {
    const reason = field(w, "reason", 40);
    if (!(REPORT_REASONS as readonly string[]).includes(reason)) throw new ApiError(400, "INVALID_INPUT", "Choose what is wrong with it");
    createReport(ctx, w.viewer.caller, { target_type: kind, target_id: id, reason: reason as ReportReason, description: field(w, "description", 1000) || null, custom_reason: field(w, "custom_reason", 80) || null });
    return `/${kind}/${id}/report?sent=1`;
  }

  const reportValues = (w: Web): ReportValues => ({ reason: typed(w, "reason"), custom_reason: typed(w, "custom_reason"), description: typed(w, "description") });

  // ---- reporting a person

  /** The person a report page names, active (404 otherwise) and not the reader (400: the service refuses it too). */
  function personOf(w: SignedInWeb, rawName: string) {
    const person = users.getActiveUser(ctx, rawName.trim());
    if (person.id === w.viewer.user.id) throw invalid("You cannot report yourself");
    return person;
  }

  function personReportPage(w: SignedInWeb, request: Request, rawName: string, values: ReportValues, sent: boolean, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const person = personOf(w, rawName);
    const href = userHref(person.username);
    const target: Target = { what: "person", href, postTitle: person.displayName || `@${person.username}` };
    return page(w, sync(ReportPage({ visit: visitOf(ctx, request), action: `${href}/report`, target, customReasons: [], values, error, sent })), status, headers);
  }

  /** The report page of a person for a signed-in reader; visitors are sent to sign in, refusals get the error page. */
  function personPage(web: Web, request: Request, rawName: string, show: (w: SignedInWeb) => Response): Response {
    if (!isSignedIn(web)) return toSignIn(web, `${userHref(rawName)}/report`);
    try {
      return show(web);
    } catch (err) {
      return refusedAction(ctx, web, request, err);
    }
  }

  app
    .get("/post/:id/edit", ({ web, request, params }) => ownPage(web, request, "post", params.id, "edit", (w, id) => editPostPage(w, request, id, null)), { params: ById, ...PAGE })
    .post(
      "/post/:id/edit",
      ({ web, request, params }) =>
        ownForm(
          web,
          request,
          "post",
          params.id,
          "edit",
          ["post_edit"],
          (w, id) => {
            const row = updatePost(ctx, w.viewer.caller, id, { title: field(w, "title", 300), body: field(w, "body", 50_000), tags: tagList(field(w, "tags", 300)) });
            return postHref(row.id);
          },
          (w, id, status, error, headers) => editPostPage(w, request, id, { title: typed(w, "title"), body: typed(w, "body"), tags: typed(w, "tags") }, status, error, headers),
        ),
      { params: ById, ...FORM },
    )
    .get("/comment/:id/edit", ({ web, request, params }) => ownPage(web, request, "comment", params.id, "edit", (w, id) => editCommentPage(w, request, id, null)), { params: ById, ...PAGE })
    .post(
      "/comment/:id/edit",
      ({ web, request, params }) =>
        ownForm(
          web,
          request,
          "comment",
          params.id,
          "edit",
          ["comment_edit"],
          (w, id) => {
            const row = updateComment(ctx, w.viewer.caller, id, { body: field(w, "body", 10_000) });
            return `${postHref(row.postId)}#comment-${row.id}`;
          },
          (w, id, status, error, headers) => editCommentPage(w, request, id, typed(w, "body"), status, error, headers),
        ),
      { params: ById, ...FORM },
    );

  app
    .get("/u/:username/report", ({ web, request, params, query }) => personPage(web, request, params.username, (w) => personReportPage(w, request, params.username, EMPTY_REPORT, query.sent === "1")), PAGE)
    .post(
      "/u/:username/report",
      ({ web, request, params }) =>
        personPage(web, request, params.username, (w) => {
          const person = personOf(w, params.username);
          try {
            charge(ctx, request, subjectOf(w.viewer.caller, w.client.ip), ["report"]);
            const reason = field(w, "reason", 40);
            if (!(REPORT_REASONS as readonly string[]).includes(reason)) throw new ApiError(400, "INVALID_INPUT", "Choose what is wrong");
            createReport(ctx, w.viewer.caller, { target_type: "user", target_id: person.id, reason: reason as ReportReason, description: field(w, "description", 1000) || null });
            return seeOther(w, `${userHref(person.username)}/report?sent=1`);
          } catch (err) {
            const f = failure(err);
            return personReportPage(w, request, params.username, reportValues(w), false, f.status, f.message, f.headers);
          }
        }),
      FORM,
    );

  for (const kind of ["post", "comment"] as const) {
    app
      .get(`/${kind}/:id/delete`, ({ web, request, params }) => ownPage(web, request, kind, params.id, "delete", (w, id) => deletePage(w, request, kind, id)), { params: ById, ...PAGE })
      .post(
        `/${kind}/:id/delete`,
        ({ web, request, params }) =>
          ownForm(
            web,
            request,
            kind,
            params.id,
            "delete",
            [kind === "post" ? "post_delete" : "comment_delete"],
            (w, id) => {
              if (kind === "post") {
                const { colony } = getVisiblePost(ctx, w.viewer.caller, id);
                deletePost(ctx, w.viewer.caller, id);
                return colonyHref(colony.name);
              }
              const { post } = getVisibleComment(ctx, w.viewer.caller, id);
              deleteComment(ctx, w.viewer.caller, id);
              return `${postHref(post.id)}#comments`;
            },
            (w, id, status, error, headers) => deletePage(w, request, kind, id, status, error, headers),
          ),
        { params: ById, ...FORM },
      )
      .get(
        `/${kind}/:id/report`,
        ({ web, request, params, query }) => ownPage(web, request, kind, params.id, "report", (w, id) => reportPage(w, request, kind, id, EMPTY_REPORT, query.sent === "1")),
        { params: ById, ...PAGE },
      )
      .post(
        `/${kind}/:id/report`,
        ({ web, request, params }) =>
          ownForm(
            web,
            request,
            kind,
            params.id,
            "report",
            ["report"],
            (w, id) => report(w, kind, id),
            (w, id, status, error, headers) => reportPage(w, request, kind, id, reportValues(w), false, status, error, headers),
          ),
        { params: ById, ...FORM },
      );
  }
};
