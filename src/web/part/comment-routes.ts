// The actions on a comment (docs/decisions.md §180): its reply form and its reaction buttons on a
// page of their own, and voting and reacting, answered with a 303 back to the comment on its
// post's page.
import { getVisibleComment } from "../../features/comments/service";
import { summary, toggleReaction } from "../../features/reactions/service";
import { findById } from "../../features/users/service";
import { castVote } from "../../features/votes/service";
import { postHref } from "../components";
import { sync } from "../layout";
import { CommentActionPage, type CommentView } from "../pages/part";
import { refusedAction } from "../respond";
import { ById, FORM, PAGE } from "../route-options";
import { field, isSignedIn, page, toSignIn, type SignedInWeb, type Web } from "../session";
import { visitOf } from "../visit";
import { action, uuidOr404, voteValue } from "./actions";
import type { WebArea } from "../web-app";

export const commentActionRoutes: WebArea = (ctx, app) => {
  /** A comment's reply form or reaction buttons on a page of their own. */
  function commentActionPage(web: Web, request: Request, rawId: string, what: "reply" | "react"): Response {
    const path = `/comment/${encodeURIComponent(rawId)}/${what}`;
    if (!isSignedIn(web)) return toSignIn(web, path);
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
      return page(web, sync(CommentActionPage({ visit: visitOf(ctx, request), comment: view, what })));
    } catch (err) {
      return refusedAction(ctx, web, request, err);
    }
  }

  /** Where a comment is shown: its post's page, at the comment. */
  function commentHref(w: SignedInWeb, id: string): string {
    const { comment } = getVisibleComment(ctx, w.viewer.caller, id);
    return `${postHref(comment.postId)}#comment-${comment.id}`;
  }

  app
    .get("/comment/:id/reply", ({ web, request, params }) => commentActionPage(web, request, params.id, "reply"), { params: ById, ...PAGE })
    .get("/comment/:id/react", ({ web, request, params }) => commentActionPage(web, request, params.id, "react"), { params: ById, ...PAGE })
    .post(
      "/comment/:id/vote",
      ({ web, request, params }) =>
        action(ctx, web, request, "/", ["vote_hourly"], (w) => {
          const id = uuidOr404(params.id);
          castVote(ctx, w.viewer.caller, "comment", id, voteValue(field(w, "value", 2)));
          return commentHref(w, id);
        }),
      { params: ById, ...FORM },
    )
    .post(
      "/comment/:id/react",
      ({ web, request, params }) =>
        action(ctx, web, request, "/", ["reaction"], (w) => {
          const id = uuidOr404(params.id);
          toggleReaction(ctx, w.viewer.caller, { comment_id: id, emoji: field(w, "emoji", 32) });
          return commentHref(w, id);
        }),
      { params: ById, ...FORM },
    );
};
