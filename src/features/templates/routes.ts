// Post templates (spec Part 3 §4.12): list, create, read, update, delete, use. Owner only.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, Uuid } from "../../http/schemas";
import { MAX_TAGS } from "../posts/content";
import { POST_TYPES } from "../posts/tables";
import * as templates from "./service";

const PAGING = { max: 100, default: 50 };
const PostTemplateOut = t.Object({
  id: Uuid,
  name: t.String(),
  title_template: Nullable(t.String()),
  body_template: Nullable(t.String()),
  post_type: Nullable(t.String()),
  default_tags: Nullable(t.Array(t.String())),
  usage_count: Int(),
  created_at: t.String({ format: "date-time" }),
});
const Name = t.String({ minLength: 1, maxLength: 200, description: "1-200 characters, trimmed" });
const Fields = {
  title_template: t.Optional(Nullable(t.String({ maxLength: 300 }))),
  body_template: t.Optional(Nullable(t.String({ maxLength: 50_000 }))),
  post_type: t.Optional(Nullable(t.UnionEnum([...POST_TYPES], { default: undefined }))),
  default_tags: t.Optional(Nullable(t.Array(t.String({ maxLength: 100 }), { maxItems: MAX_TAGS, description: `At most ${MAX_TAGS}, normalised as a post's tags` }))),
};
const IdParams = t.Object({ template_id: Uuid });
const OWNER = "404 NOT_FOUND for a template that is missing or not yours alike.";

const out = (r: templates.TemplateRow) => ({
  id: r.id,
  name: r.name,
  title_template: r.titleTemplate,
  body_template: r.bodyTemplate,
  post_type: r.postType,
  default_tags: r.defaultTags,
  usage_count: r.usageCount,
  created_at: iso(r.createdAt),
});

export const templatesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/post-templates", tags: ["post-templates"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = templates.listTemplates(ctx, caller, page);
        return paged(items.map(out), total, page);
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(PAGING)),
        response: pagedSchema(PostTemplateOut),
        detail: { summary: "List Post Templates", description: "Your templates, newest first." },
      },
    )
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return out(templates.createTemplate(ctx, caller, body));
      },
      {
        auth: "required",
        body: t.Object({ name: Name, ...Fields }),
        response: { 201: PostTemplateOut, 400: ErrorOut },
        detail: {
          summary: "Create Post Template",
          description: `A template: a name and any of a title, a body, a post type and default tags (normalised as a post's; 400 INVALID_INPUT for a bad one). 400 INVALID_INPUT for a blank name; 400 LIMIT_EXCEEDED at ${templates.MAX_TEMPLATES} templates.`,
        },
      },
    )
    .get("/:template_id", ({ caller, params }) => out(templates.getTemplate(ctx, caller, params.template_id)), {
      auth: "required",
      params: IdParams,
      response: { 200: PostTemplateOut, 404: ErrorOut },
      detail: { summary: "Get Post Template", description: `One of your templates. ${OWNER}` },
    })
    .put("/:template_id", ({ caller, params, body }) => out(templates.updateTemplate(ctx, caller, params.template_id, body)), {
      auth: "required",
      params: IdParams,
      body: t.Object({ name: t.Optional(Nullable(Name)), ...Fields }),
      response: { 200: PostTemplateOut, 400: ErrorOut, 404: ErrorOut },
      detail: { summary: "Update Post Template", description: `Any subset of the fields; an empty string, an empty list or null clears one (the name cannot be cleared). ${OWNER}` },
    })
    .delete(
      "/:template_id",
      ({ caller, params, set }) => {
        templates.deleteTemplate(ctx, caller, params.template_id);
        set.status = 204;
      },
      {
        auth: "required",
        params: IdParams,
        response: { 204: t.Void(), 404: ErrorOut },
        detail: { summary: "Delete Post Template", description: `204; posts made from it are untouched. ${OWNER}` },
      },
    )
    .post("/:template_id/use", ({ caller, params }) => out(templates.useTemplate(ctx, caller, params.template_id)), {
      auth: "required",
      params: IdParams,
      response: { 200: PostTemplateOut, 404: ErrorOut },
      detail: {
        summary: "Use Post Template",
        description: `Counts a use and returns the template's fields (with the new usage_count) to fill a post with; it creates no post. ${OWNER}`,
      },
    });
