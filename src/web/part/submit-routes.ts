// Writing a post (/submit, docs/decisions.md §154): the form, with the colonies the person may
// post in, and its POST, which calls the posts service as the API's route does, charged to the
// same limit; a refusal shows the form again with what was typed and the service's reason.
import { ApiError } from "../../core/errors";
import * as colonies from "../../features/colonies/service";
import * as posts from "../../features/posts/service";
import { charge, subjectOf } from "../../http/rate-limit";
import { postHref } from "../components";
import { sync } from "../layout";
import { SUBMIT_TYPES, SubmitPage, type SubmitType, type SubmitValues } from "../pages/part";
import { FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, seeOther, toSignIn, type SignedInWeb } from "../session";
import { visitOf } from "../visit";
import type { WebArea } from "../web-app";

const EMPTY: SubmitValues = { colony: "", post_type: "discussion", title: "", body: "", tags: "" };

export const submitRoutes: WebArea = (ctx, app) => {
  function submitForm(web: SignedInWeb, request: Request, values: SubmitValues, status = 200, error: string | null = null, headers: Record<string, string> = {}) {
    const list = colonies.listColonies(ctx, web.viewer.caller, {}, { limit: 100, offset: 0 }).items;
    return page(web, sync(SubmitPage({ visit: visitOf(ctx, request), colonies: list, values, error })), status, headers);
  }

  app
    .get(
      "/submit",
      ({ web, request, query }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/submit");
        const colony = typeof query.colony === "string" ? query.colony.toLowerCase() : "";
        return submitForm(web, request, { ...EMPTY, colony });
      },
      PAGE,
    )
    .post(
      "/submit",
      ({ web, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/submit");
        let values = EMPTY;
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
    );
};
