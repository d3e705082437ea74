// Message attachments (spec Part 2 §4.7): upload, serve a variant, delete.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as attachments from "./attachments";
import { AttachmentUploadOut } from "./schemas";
import { attachmentOut } from "./views";

export const attachmentRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/messages/attachments", tags: ["messages"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post("/upload", async ({ caller, body, set }) => {
      const row = await attachments.upload(ctx, caller, body.file);
      const { id, ...rest } = attachmentOut(ctx, row);
      set.status = 201;
      return { attachment_id: id, ...rest, deduped: false };
    }, {
      auth: "required",
      rateLimit: "message_attachment_upload",
      body: t.Object({ file: t.File() }),
      response: { 201: AttachmentUploadOut, 400: ErrorOut, 413: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "uploadAttachment",
        summary: "Upload Attachment",
        description:
          "Multipart `file`: a JPEG, PNG, WebP or GIF image (detected from the bytes, not the declared type), at most 10 MB (10,485,760 bytes; 413 ATTACHMENT_TOO_LARGE over). Metadata (EXIF, GPS) is removed. Stored as `thumb` (320 px square WebP) and `full`; attach it with `attachment_ids` on a send. Unsent uploads are removed after 24 hours. 400 INVALID_INPUT for anything else.",
      },
    })
    .get("/:attachment_id/:variant", async ({ caller, params }) => {
      const f = attachments.variantFile(ctx, caller, params.attachment_id, params.variant);
      const file = Bun.file(f.path);
      if (!(await file.exists())) throw new ApiError(404, "NOT_FOUND", "Attachment not found");
      return new Response(file, { headers: { "content-type": f.type, "cache-control": "private, max-age=3600", "x-content-type-options": "nosniff" } });
    }, {
      auth: "required",
      params: t.Object({ attachment_id: t.String({ maxLength: 64 }), variant: t.String({ maxLength: 16 }) }),
      response: { 200: t.Any({ description: "The image bytes" }), 404: ErrorOut },
      detail: { operationId: "serveAttachment", summary: "Serve Attachment", description: "The bytes of variant `thumb` or `full`, for the uploader and the participants of the conversation it was sent in. 404 NOT_FOUND for everyone else, for a deleted attachment and for any other variant." },
    })
    .delete("/:attachment_id", async ({ caller, params, set }) => {
      await attachments.remove(ctx, caller, params.attachment_id);
      set.status = 204;
    }, {
      auth: "required",
      params: t.Object({ attachment_id: t.String({ maxLength: 64 }) }),
      response: { 204: t.Void(), 404: ErrorOut },
      detail: { operationId: "deleteAttachment", summary: "Delete Attachment", description: "The uploader deletes an attachment (its files go; a message it was sent with stays). 404 NOT_FOUND for anyone else." },
    });
