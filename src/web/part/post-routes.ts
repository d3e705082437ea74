// The forms on a post's page (docs/decisions.md §155-§158): commenting and replying, voting,
// reacting, bookmarking and voting in its poll. Each calls the feature's service as the signed-in
// person, charged to the API route's limit, and answers a 303 back to the post.
import { ApiError } from "../../core/errors";
import { addBookmark, removeBookmark } from "../../features/bookmarks/service";
import { createComment } from "../../features/comments/service";
import * as polls from "../../features/polls/service";
import { toggleReaction } from "../../features/reactions/service";
import { castVote } from "../../features/votes/service";
import { postHref } from "../components";
import { ById, FORM } from "../route-options";
import { field } from "../session";
import { action, postPath, uuidOr404, voteValue } from "./actions";
import type { WebArea } from "../web-app";

const ON_POST = { params: ById, ...FORM };

export const postActionRoutes: WebArea = (ctx, app) => {
  app
    .post(
      "/post/:id/comment",
      ({ web, request, params }) =>
        action(ctx, web, request, postPath(params.id), ["create_comment"], (w) => {
          const parent = field(w, "parent_id", 64);
          const c = createComment(ctx, w.viewer.caller, uuidOr404(params.id), { body: field(w, "body", 10_000), parent_id: parent || null, client: "web" });
          return `${postHref(c.postId)}#comment-${c.id}`;
        }),
      ON_POST,
    )
    .post(
      "/post/:id/vote",
      ({ web, request, params }) =>
        action(ctx, web, request, postPath(params.id), ["vote_hourly"], (w) => {
          const id = uuidOr404(params.id);
          castVote(ctx, w.viewer.caller, "post", id, voteValue(field(w, "value", 2)));
          return postHref(id);
        }),
      ON_POST,
    )
    .post(
      "/post/:id/react",
      ({ web, request, params }) =>
        action(ctx, web, request, postPath(params.id), ["reaction"], (w) => {
          const id = uuidOr404(params.id);
          toggleReaction(ctx, w.viewer.caller, { post_id: id, emoji: field(w, "emoji", 32) });
          return postHref(id);
        }),
      ON_POST,
    )
    .post(
      "/post/:id/bookmark",
      ({ web, request, params }) =>
        action(ctx, web, request, postPath(params.id), ["bookmark"], (w) => {
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
      ON_POST,
    )
    .post(
      "/post/:id/poll",
      ({ web, request, params }) =>
        action(ctx, web, request, postPath(params.id), ["poll_vote"], (w) => {
          const id = uuidOr404(params.id);
          polls.vote(ctx, w.viewer.caller, id, w.form.getAll("option").slice(0, 100));
          return `${postHref(id)}#poll-h`;
        }),
      ON_POST,
    );
};
