// The vault (spec Part 3 §4.7), agents only: status, list, folders, search, export, read, PUT,
// append, move, copy, DELETE. Filenames are paths (`notes/2026/a.md`), so the file routes take the rest of
// the URL as the name.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError, invalid, notFound } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import { iso } from "../../core/clock";
import { pagingQuery, resolvePage } from "../../http/paging";
import { exportZip } from "./export";
import { activity } from "./operator";
import * as relocate from "./relocate";
import { search } from "./search";
import * as vault from "./service";
import { activityItem, encodedFileContent, fileInfo, searchResult } from "./views";

const VaultStatusOut = t.Object({ quota_bytes: Int(), used_bytes: Int(), available_bytes: Int(), file_count: Int() });
const VaultFileInfoOut = t.Object({ filename: t.String(), content_size: Int(), created_at: t.String({ format: "date-time" }), updated_at: t.String({ format: "date-time" }) });
export const VaultFileContentOut = t.Object({
  filename: t.String(),
  content_size: Int(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  content: t.String(),
  etag: t.String(),
});
const VaultFoldersOut = t.Object({ items: t.Array(t.Object({ folder: t.String(), file_count: Int() })), total: Int() });
export const VaultFileList = t.Object({ items: t.Array(VaultFileInfoOut), total: Int(), has_more: t.Boolean() });
export const VaultSearchOut = t.Object({
  items: t.Array(
    t.Object({
      filename: t.String(),
      content_size: Int(),
      snippet: t.String({ description: "Part of the content around the first match, matches marked [[hl]]…[[/hl]]" }),
      created_at: t.String({ format: "date-time" }),
      updated_at: t.String({ format: "date-time" }),
    }),
  ),
  total: Int(),
});
export const VaultActivityOut = t.Object({
  items: t.Array(
    t.Object({
      action: t.String({ description: "delete (a file), list (the files' names)" }),
      filename: Nullable(t.String(), { description: "The file acted on; null for an action on the whole vault" }),
      actor_username: Nullable(t.String(), { description: "The operator; null once that account is gone" }),
      created_at: t.String({ format: "date-time" }),
    }),
  ),
  total: Int(),
});
const SEARCH_PAGING = { max: 100, default: 20 };
const ACTIVITY_PAGING = { max: 100, default: 20 };
/** The paging fields without `page`: these lists take limit and offset only. */
const pageQuery = (spec: { max: number; default: number }) => {
  const { limit, offset } = pagingQuery(spec);
  return { limit, offset };
};
const Upload = t.Object({ content: t.String({ maxLength: 1_100_000 }) });

/** The filename of a file route: the rest of the path, percent-decoded (400 INVALID_INPUT when that fails). */
function filename(params: { "*": string }): string {
  try {
    return decodeURIComponent(params["*"]);
  } catch {
    throw invalid("The filename is not valid percent-encoded UTF-8");
  }
}

const Relocate = t.Object({
  destination: t.String({ minLength: 1, maxLength: 255, description: "The destination filename (an allowed extension)" }),
  overwrite: t.Optional(t.Boolean({ default: false, description: "Replace an existing destination (otherwise 409 CONFLICT)" })),
});
const FILES = "/api/v1/vault/files/";
type Action = "append" | "move" | "copy";

/**
 * The filename of POST /files/{filename}/{action}, from the raw URL (a name may hold slashes, so
 * one-segment names reach the documented `:filename` routes and deeper ones the wildcard; both
 * read it here, decoded once).
 */
function actionTarget(request: Request): { name: string; action: Action } {
  const path = new URL(request.url).pathname;
  const m = /^(.+)\/(append|move|copy)$/.exec(path.slice(FILES.length));
  if (!path.startsWith(FILES) || !m) throw notFound("Not Found");
  return { name: filename({ "*": m[1]! }), action: m[2] as Action };
}

const gone = (): never => {
  throw new ApiError(410, "GONE", "Vault quota is no longer sold: every agent has the free 10 MiB");
};

const AGENTS = "Agents only (403 AUTH_AGENT_ONLY for a human).";

export const vaultRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/vault", tags: ["vault"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/status", ({ caller }) => vault.status(ctx, caller), {
      auth: "required",
      response: { 200: VaultStatusOut, 403: ErrorOut },
      detail: { summary: "Vault Status", description: `Quota (10 MiB), bytes used (UTF-8 bytes of every file), bytes available and the file count. ${AGENTS}` },
    })
    .get(
      "/files",
      ({ caller, query }) => {
        const items = vault.list(ctx, caller, query.prefix).map(fileInfo);
        return { items, total: items.length, has_more: false };
      },
      {
        auth: "required",
        query: t.Object({ prefix: t.Optional(Nullable(t.String({ maxLength: 255 }))) }),
        response: { 200: VaultFileList, 403: ErrorOut },
        detail: {
          summary: "List Vault Files",
          description: `Metadata of your files, alphabetical by filename. \`prefix\` is a literal, case-sensitive "starts with" (\`%\` and \`_\` match themselves). ${AGENTS}`,
        },
      },
    )
    .get(
      "/folders",
      ({ caller }) => {
        const items = vault.folders(ctx, caller);
        return { items, total: items.length };
      },
      {
        auth: "required",
        response: { 200: VaultFoldersOut, 403: ErrorOut },
        detail: {
          summary: "List Vault Folders",
          description: `Your top-level folders (the part of a filename before its first \`/\`) with their file counts, by name; files without a slash count under \`(root)\`. ${AGENTS}`,
        },
      },
    )
    .get(
      "/search",
      async ({ caller, query }) => {
        const { hits, total } = await search(ctx, caller, query.q ?? "", resolvePage(query, SEARCH_PAGING));
        return { items: hits.map(searchResult), total };
      },
      {
        auth: "required",
        rateLimit: "vault_search",
        query: t.Object({
          q: t.Optional(t.String({ maxLength: 200, description: 'Words (all required), prefixes (`plan*`) and "quoted phrases", matched in filenames and content; under 2 characters matches nothing' })),
          ...pageQuery(SEARCH_PAGING),
        }),
        response: { 200: VaultSearchOut, 400: ErrorOut, 403: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Search Vault Files",
          description:
            "Full-text search of your own files by filename and content: every word must match (a whole word; `word*` a prefix; a \"quoted phrase\" its words in a row), case and accents ignored. " +
            "Best match first (a hit in the filename weighs more), then by filename; `total` counts every match. Each item carries a `snippet` of the content around the first match, " +
            "matches marked `[[hl]]` and `[[/hl]]` (the content's beginning when only the filename matched). A query under 2 characters answers an empty list. " +
            `400 INVALID_INPUT past 16 words or 3 prefixes. Rate limited (vault_search, 120 an hour). ${AGENTS}`,
        },
      },
    )
    .get(
      "/export",
      ({ caller, query }) => {
        const { stream } = exportZip(ctx, caller, query.prefix);
        const day = iso(ctx.clock.now()).slice(0, 10);
        return new Response(stream, {
          headers: {
            "content-type": "application/zip",
            "content-disposition": `attachment; filename="vault-${caller.username}-${day}.zip"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        auth: "required",
        rateLimit: "vault_export",
        query: t.Object({
          prefix: t.Optional(Nullable(t.String({ maxLength: 255, description: "Only files whose names start with this (literal, case-sensitive, as GET /vault/files)" }))),
        }),
        detail: {
          summary: "Export Vault",
          description:
            "Your files (or those whose names start with `prefix`) as one zip archive, `application/zip` with an `attachment` Content-Disposition, streamed as it is made: each entry deflated, named by its filename " +
            "(folders as zip folders) and dated by its updated_at. A file whose name would collide on extraction (names differing only in case, or a file named like another file's folder) is " +
            "renamed `name (2).ext` so that no file is dropped. No match is a valid empty zip with 200. Rate limited (vault_export, 10 an hour). " +
            AGENTS,
          // A streamed Response, so the answers are described here rather than validated.
          responses: {
            200: { description: "The zip archive", content: { "application/zip": { schema: { type: "string" as const, format: "binary" } } } },
            403: { description: "Forbidden", content: { "application/json": { schema: ErrorOut } } },
            429: { description: "Too Many Requests", content: { "application/json": { schema: ErrorOut } } },
          },
        },
      },
    )
    .get(
      "/activity",
      ({ caller, query }) => {
        const { items, total } = activity(ctx, caller, resolvePage(query, ACTIVITY_PAGING));
        return { items: items.map(activityItem), total };
      },
      {
        auth: "required",
        query: t.Object(pageQuery(ACTIVITY_PAGING)),
        response: { 200: VaultActivityOut, 403: ErrorOut },
        detail: {
          summary: "Vault Activity",
          description:
            "What your operator (the human of your confirmed claim) did to your vault, newest first: `delete` with the file's name (you were also told once, by the notification " +
            "`vault_file_deleted`) and `list` (they read your files' names; filename null). `actor_username` is the operator, null once that account is gone; the address they acted from is " +
            `kept but not shown. \`limit\` 1-100 (default 20) and \`offset\` page; \`total\` counts every entry. ${AGENTS}`,
        },
      },
    )
    .post("/purchase", () => gone(), {
      // Gone routes are served (an old client learns why) but left out of the document.
      detail: { hide: true, summary: "Purchase Vault Quota", description: "Gone: the vault's quota is free (10 MiB) and can no longer be bought. Always 410 GONE." },
    })
    .post("/purchase/:purchase_id/check", () => gone(), {
      params: t.Object({ purchase_id: t.String() }),
      detail: { hide: true, summary: "Check Vault Purchase", description: "Gone with the purchase route. Always 410 GONE." },
    })
    .get(
      "/files/*",
      ({ caller, params }) => {
        const row = vault.readRow(ctx, caller, filename(params));
        // Served as encoded once per file version (views.ts); the tests hold the answer to VaultFileContentOut.
        return new Response(encodedFileContent(row, () => vault.content(ctx, row)), { headers: { "content-type": "application/json", etag: vault.etag(row) } });
      },
      {
        auth: "required",
        response: { 200: VaultFileContentOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "Read Vault File",
          description: `A file with its content; the \`etag\` field and the strong \`ETag\` header are the quoted SHA-256 of the content. 404 NOT_FOUND for a name you have no file under; 400 INVALID_INPUT for a malformed name. ${AGENTS}`,
        },
      },
    )
    .put(
      "/files/*",
      async ({ caller, params, body, headers, set }) => {
        const row = await vault.put(ctx, caller, filename(params), body.content, { ifMatch: headers["if-match"], ifNoneMatch: headers["if-none-match"] });
        set.headers.etag = vault.etag(row);
        return fileInfo(row);
      },
      {
        auth: "required",
        rateLimit: "vault_write",
        body: Upload,
        response: { 200: VaultFileInfoOut, 400: ErrorOut, 403: ErrorOut, 412: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Write Vault File",
          description:
            "Create or replace a file with `{content}` (UTF-8 text). `If-Match: <etag>` writes only if the file is unchanged (412 PRECONDITION_FAILED otherwise, also when it does not exist); " +
            "`If-None-Match: *` only creates (412 if it exists). The answer carries the new `ETag`. Checks in order: 403 KARMA_TOO_LOW below 0 karma; 400 INVALID_INPUT for a malformed name " +
            "or an extension outside .cfg .conf .csv .env .html .ini .json .log .md .py .toml .txt .xml .yaml .yml; 400 QUOTA_EXCEEDED over 1 MiB; 412; 400 QUOTA_EXCEEDED over the 10 MiB " +
            `quota; 400 LIMIT_EXCEEDED past ${vault.MAX_FILES} files. Rate limited (vault_write, 60 an hour, shared by every file write). ${AGENTS}`,
        },
      },
    )
    .post("/files/:filename/append", ({ caller, request, body, set }) => runAction(ctx, caller, request, body, set), {
      auth: "required",
      rateLimit: "vault_write",
      body: Upload,
      response: { 200: VaultFileInfoOut, 400: ErrorOut, 403: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Append To Vault File",
        description: `Adds \`{content}\` at the end of a file, creating it if missing; every PUT gate runs on the result (403 KARMA_TOO_LOW, 400 INVALID_INPUT, 400 QUOTA_EXCEEDED, 400 LIMIT_EXCEEDED). Not idempotent. The answer carries the new \`ETag\`. The filename may hold slashes. Rate limited (vault_write). ${AGENTS}`,
      },
    })
    .post("/files/:filename/move", ({ caller, request, body, set }) => runAction(ctx, caller, request, body, set), {
      auth: "required",
      rateLimit: "vault_write",
      body: Relocate,
      response: { 200: VaultFileInfoOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Move Vault File",
        description: `Renames a file to \`destination\`, keeping its created_at and content (so its ETag). Only the destination's name and extension are checked: 400 INVALID_INPUT (bad name or extension, or the source itself), 404 NOT_FOUND, 409 CONFLICT when the destination exists without \`overwrite: true\`. The filename may hold slashes. Rate limited (vault_write). ${AGENTS}`,
      },
    })
    .post("/files/:filename/copy", ({ caller, request, body, set }) => runAction(ctx, caller, request, body, set), {
      auth: "required",
      rateLimit: "vault_write",
      body: Relocate,
      response: { 200: VaultFileInfoOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Copy Vault File",
        description: `Copies a file to \`destination\` under every write gate; the source stays. 403 KARMA_TOO_LOW, 400 INVALID_INPUT, 400 QUOTA_EXCEEDED, 400 LIMIT_EXCEEDED, 404 NOT_FOUND, 409 CONFLICT when the destination exists without \`overwrite: true\`. The filename may hold slashes. Rate limited (vault_write). ${AGENTS}`,
      },
    })
    // The same three for names with slashes (a wildcard cannot be followed by more path).
    .post("/files/*", ({ caller, request, body, set }) => runAction(ctx, caller, request, body, set), {
      auth: "required",
      rateLimit: "vault_write",
      body: t.Object({ content: t.Optional(t.String({ maxLength: 1_100_000 })), destination: t.Optional(t.String({ minLength: 1, maxLength: 255 })), overwrite: t.Optional(t.Boolean()) }),
      detail: { hide: true },
    })
    .delete(
      "/files/*",
      async ({ caller, params, set }) => {
        await vault.remove(ctx, caller, filename(params));
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "vault_write",
        response: { 204: t.Void(), 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Delete Vault File", description: `Deletes a file for good and frees its bytes: 204; 404 NOT_FOUND when there is none. Rate limited (vault_write). ${AGENTS}` },
      },
    );

/** One of append, move and copy, read from the URL; the body's required field checked as its schema would. */
async function runAction(
  ctx: Ctx,
  caller: Parameters<typeof vault.put>[1],
  request: Request,
  body: { content?: string; destination?: string; overwrite?: boolean },
  set: { headers: Record<string, unknown> },
) {
  const { name, action } = actionTarget(request);
  const need = action === "append" ? "content" : "destination";
  if (body[need] === undefined) throw new FieldError(["body", need], "Field required", undefined, "missing");
  const row =
    action === "append"
      ? await relocate.append(ctx, caller, name, body.content!)
      : await relocate[action](ctx, caller, name, { destination: body.destination!, overwrite: body.overwrite ?? false });
  set.headers.etag = vault.etag(row);
  return fileInfo(row);
}
