// Notarisation (spec Part 3 §4.15; docs/notarisation.md): POST …/notarise, GET …/notarisation and
// the record's two files, …/notarisation/proof (the `.ots` proof) and …/notarisation/canonical
// (the canonical document's exact bytes), for posts and, with the same terms, comments. The file
// routes carry no extension in their paths (the OpenAPI generator leaves such paths out); their
// Content-Disposition names the files as `ots verify` expects them.
import { Elysia, t, type AnyElysia } from "elysia";
import { OTS_MEDIA_TYPE } from "../../adapters/timestamp/ots";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import * as notary from "./service";
import { PROOF_STATES, type SubjectType } from "./tables";
import { notarisationOut, userNotarisationOut } from "./views";

const Instant = t.String({ format: "date-time" });

const NotarisationOut = t.Object({
  subject_type: t.UnionEnum(["post", "comment"]),
  subject_id: t.String(),
  payload_hash: t.String({ description: "sha256 of `canonical`, hex: the only thing about the content that ever left this server." }),
  canonical: t.Record(t.String(), t.Union([t.String(), Int(), t.Null()]), {
    description:
      "The exact document that was hashed. Recompute sha256(json(canonical, sorted keys, no whitespace, non-ASCII as \\uXXXX)) and it must equal payload_hash; canonical_url serves those bytes. " +
      "Posts: format, subject_type, subject_id, post_type, author_id, author_username, colony_id, colony_name, title_sha256, body_sha256, created_at, instance, notarised_at. " +
      "Comments: format, subject_type, subject_id, post_id, parent_id, author_id, author_username, colony_id, colony_name, body_sha256, created_at, instance, notarised_at. " +
      "title_sha256 and body_sha256 are the sha256 (hex) of the title and body, UTF-8, exactly as served.",
  }),
  recorder_id: t.String({ description: "Who recorded the digest: `opentimestamps`, the calendars listed in `calendars`." }),
  seq: Nullable(Int(), { description: "Always null: OpenTimestamps calendars keep no numbered log." }),
  entry_hash: Nullable(t.String(), { description: "Always null (see seq)." }),
  server_ts: Nullable(t.String(), { description: "Always null: calendars do not state a time; the Bitcoin block does." }),
  proof_url: Nullable(t.String(), { description: "The detached OpenTimestamps proof (.ots), public. Save it as <name>.json.ots next to the document of canonical_url saved as <name>.json, and run `ots verify` (or `ots upgrade` first)." }),
  canonical_url: t.String({ description: "The canonical document's exact bytes (sha256 of them is payload_hash)." }),
  calendars: t.Array(t.String(), { description: "The OpenTimestamps calendars that accepted the digest." }),
  proof_state: t.UnionEnum(PROOF_STATES, {
    description:
      "How far THIS SERVER has seen the proof go (it never runs a Bitcoin node): `recorded`, calendars accepted the digest and returned their pending attestations (a promise); " +
      "`included`, a calendar answered an upgrade with a timestamp for our commitment — the digest is merged into its commitment tree — without a Bitcoin attestation yet; " +
      "`anchored`, the proof names a Bitcoin block (bitcoin_block_height). With the public calendars a record often goes from recorded straight to anchored, a few hours later.",
  }),
  proof_observed_at: Nullable(Instant, { description: "When the current proof_state was established; restamped on each advance." }),
  proof_note: Nullable(t.String(), { description: "Why the record is not further along, in plain words (the last upgrade check)." }),
  bitcoin_block_height: Nullable(Int(), { description: "The Bitcoin block the proof is anchored to, read from the proof and NOT checked against a node here: `ots verify` does that." }),
  beacon_round: Nullable(Int(), { description: "Always null: no randomness beacon is used." }),
  establishes: t.String({ description: "What the record independently establishes, stated so it cannot be read for more than it proves." }),
  asserted_by_the_platform: t.Array(t.String(), { description: "Fields of canonical that are this server's own claim: the calendars only ever saw payload_hash." }),
  recompute: t.String({ description: "Exactly how to recompute payload_hash from canonical." }),
  served_content_matches: t.Boolean({ description: "Whether the title and body served now still hash to the digests in canonical." }),
  notarised_at: Instant,
  editable: t.Boolean({ description: "Always false: the content is frozen for good." }),
});

const FILE_CACHE = "public, max-age=60";

function subjectRoutes(ctx: Ctx, type: SubjectType): AnyElysia {
  const param = type === "post" ? "post_id" : "comment_id";
  const Params = t.Object({ [param]: t.String({ format: "uuid" }) } as Record<"post_id" | "comment_id", ReturnType<typeof t.String>>);
  const idOf = (params: Record<string, string>) => params[param];
  const the = `the ${type}`;
  const tags = [type === "post" ? "posts" : "comments", "notarisation"];
  const title = type === "post" ? "Post" : "Comment";
  const terms =
    type === "post"
      ? ""
      : " Identical in every respect to POST /api/v1/posts/{post_id}/notarise, including the permanent freeze and the shared daily limit (notarise: 5 a day per account, 20 per address).";
  return new Elysia({ prefix: `/api/v1/${type}s` })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      `/:${param}/notarise`,
      async ({ caller, params, set }) => {
        const { record, subject } = await notary.notarise(ctx, caller, type, idOf(params));
        set.status = 201;
        return notarisationOut(ctx, record, subject);
      },
      {
        auth: "required",
        rateLimit: ["notarise", "notarise_ip"],
        params: Params,
        response: { 201: NotarisationOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut, 502: ErrorOut, 503: ErrorOut },
        detail: {
          tags,
          summary: `Notarise ${title}`,
          description:
            `Prove that ${the} existed, exactly as it stands, at this time. The server builds the canonical document (returned in full), hashes it, and sends only that SHA-256 to the OpenTimestamps calendars; their answers become the proof at proof_url, which a background task upgrades until it names a Bitcoin block. ` +
            `**This freezes ${the} permanently**: it can never be edited, deleted by its author, moved or reparented again (403); moderators can still remove it, and removing it does not retract the proof. ` +
            `Author only (403 FORBIDDEN for anyone else; 404 NOT_FOUND when you cannot see it). 409 CONFLICT if already notarised, still a draft or held for moderation; 502 UPSTREAM_FAILURE when no calendar could be reached (nothing is frozen: retry freely); 503 NOTARISATION_DISABLED when notarisation is off here.${terms}`,
        },
      },
    )
    .get(`/:${param}/notarisation`, ({ caller, params }) => {
      const { record, subject } = notary.getNotarisation(ctx, caller, type, idOf(params));
      return notarisationOut(ctx, record, subject);
    }, {
      auth: "optional",
      params: Params,
      response: { 200: NotarisationOut, 404: ErrorOut },
      detail: {
        tags,
        summary: `Get ${title} Notarisation`,
        description: `The public notarisation record of ${the}: the canonical document to recompute payload_hash from, the proof's state and where to fetch the proof. No authentication needed; 404 NOT_FOUND when ${the} is not notarised or not visible to you (deleted, or in a private colony you are not a member of).`,
      },
    })
    .get(`/:${param}/notarisation/proof`, ({ caller, params }) => {
      const { record } = notary.getNotarisation(ctx, caller, type, idOf(params));
      return new Response(new Uint8Array(record.proof), {
        headers: { "content-type": OTS_MEDIA_TYPE, "content-disposition": `attachment; filename="${type}-${record.subjectId}.json.ots"`, "cache-control": FILE_CACHE, "x-content-type-options": "nosniff" },
      });
    }, {
      auth: "optional",
      params: Params,
      response: { 200: t.String({ description: `${OTS_MEDIA_TYPE}: a detached OpenTimestamps proof` }), 404: ErrorOut },
      detail: {
        tags,
        summary: `Get ${title} Notarisation Proof`,
        description: `The detached OpenTimestamps proof (.ots) of ${the}'s canonical document, as last upgraded. It downloads as ${type}-<id>.json.ots; save the canonical document (…/notarisation/canonical) beside it as ${type}-<id>.json and run \`ots verify ${type}-<id>.json.ots\` (\`ots upgrade\` first if it is still pending). 404 as for the record.`,
      },
    })
    .get(`/:${param}/notarisation/canonical`, ({ caller, params }) => {
      const { record } = notary.getNotarisation(ctx, caller, type, idOf(params));
      return new Response(record.canonical, {
        headers: { "content-type": "application/json", "content-disposition": `attachment; filename="${type}-${record.subjectId}.json"`, "cache-control": FILE_CACHE },
      });
    }, {
      auth: "optional",
      params: Params,
      response: { 200: t.String({ description: "application/json: the canonical document's exact bytes" }), 404: ErrorOut },
      detail: {
        tags,
        summary: `Get ${title} Notarisation Document`,
        description: `The canonical document of ${the}'s notarisation, byte for byte as hashed: sha256 of this body is payload_hash, and it is the file the proof at proof_url timestamps. 404 as for the record.`,
      },
    });
}

const UserNotarisationOut = t.Object({
  subject_type: t.UnionEnum(["post", "comment"]),
  subject_id: t.String(),
  post_id: t.String({ description: "The post: subject_id for a post, the post a comment answers for a comment." }),
  title: Nullable(t.String(), { description: "The post's title; null for a comment." }),
  payload_hash: t.String(),
  proof_state: t.UnionEnum(PROOF_STATES),
  proof_observed_at: Nullable(Instant),
  seq: Nullable(Int(), { description: "Always null (see the record)." }),
  server_ts: Nullable(t.String(), { description: "Always null (see the record)." }),
  notarised_at: t.String({ format: "date-time", description: "When the record was made: the order of the list, and not the content's publication date." }),
  proof_url: Nullable(t.String(), { description: "The .ots proof." }),
  record_url: t.String({ description: "The full record (GET …/notarisation), with the canonical document to recompute." }),
});
const UserNotarisationList = t.Object({ items: t.Array(UserNotarisationOut), total: Int(), has_more: t.Boolean() });
const USER_PAGING = { max: 100, default: 50 };
const USER_LIST =
  "Everything one author has notarised, newest notarisation first: a summary per record with links to the full record and the proof. Public; records whose content you cannot see (deleted, held, in a private colony you are not an approved member of) are left out. Unknown author: 404 USER_NOT_FOUND.";

const userListRoutes = (ctx: Ctx) => {
  const list = (caller: Parameters<typeof notary.listUserNotarisations>[1], ref: Parameters<typeof notary.listUserNotarisations>[2], query: { limit?: number; offset?: number; page?: number }) => {
    const page = resolvePage(query, USER_PAGING);
    const r = notary.listUserNotarisations(ctx, caller, ref, page);
    const { page: _p, ...out } = paged(r.items.map((i) => userNotarisationOut(ctx, i.record, i.subject)), r.total, page);
    return out;
  };
  return new Elysia({ prefix: "/api/v1/users", tags: ["users"] })
    .use(authPlugin(ctx))
    .get("/by-username/:username/notarisations", ({ caller, params, query }) => list(caller, { username: params.username }, query), {
      auth: "optional",
      params: t.Object({ username: t.String({ maxLength: 64 }) }),
      query: t.Object(pagingQuery(USER_PAGING)),
      response: { 200: UserNotarisationList, 400: ErrorOut, 404: ErrorOut },
      detail: { summary: "List a user's notarisations by username", description: USER_LIST },
    })
    .get("/:user_id/notarisations", ({ caller, params, query }) => list(caller, { idOrUsername: params.user_id }, query), {
      auth: "optional",
      params: t.Object({ user_id: t.String({ maxLength: 64, description: "A user id or a username" }) }),
      query: t.Object(pagingQuery(USER_PAGING)),
      response: { 200: UserNotarisationList, 400: ErrorOut, 404: ErrorOut },
      detail: { summary: "List a user's notarisations", description: USER_LIST },
    });
};

export const notarisationRoutes = (ctx: Ctx): AnyElysia[] => [subjectRoutes(ctx, "post"), subjectRoutes(ctx, "comment"), userListRoutes(ctx)];
