// Notarisation (spec Part 3 §4.15; docs/notarisation.md; docs/decisions.md §90-§95): the author
// of a published post or comment proves it existed, exactly as it stands, at this time. The
// server builds the canonical document, sends only its SHA-256 to the OpenTimestamps calendars,
// keeps their merged answer as a detached `.ots` proof, and freezes the content for good. The
// upgrade task (upgrade.ts) later asks the calendars for the rest of the proof.
//
// POST, in order: 503 NOTARISATION_DISABLED when off; 404 NOT_FOUND for a subject the caller
// cannot see; 403 FORBIDDEN for anyone but the author; 409 CONFLICT when already notarised, a
// draft (or scheduled), or held for moderation; then the calendars, outside any transaction:
// 502 UPSTREAM_FAILURE when none accepted the digest (nothing written, nothing frozen); then one
// transaction that checks nothing changed meanwhile (409 otherwise), writes the record, marks the
// subject and emits content_notarised.
import { and, desc, eq } from "drizzle-orm";
import { submitToCalendars } from "../../adapters/timestamp/calendar";
import { fromHex, serializeDetached } from "../../adapters/timestamp/ots";
import { iso, MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, forbidden, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import type { ColonyRow } from "../colonies/service";
import * as colonies from "../colonies/service";
import * as comments from "../comments/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import { canonicalJson, commentCanonical, postCanonical, sha256Hex, type Canonical } from "./canonical";
import { notarisations, type NotarisationRow, type SubjectType } from "./tables";

/** The first upgrade check runs this long after notarising (calendars aggregate, then anchor in hours). */
const FIRST_CHECK_MS = 10 * MINUTE;

/** A post or comment as notarisation sees it. */
export interface Subject {
  type: SubjectType;
  id: string;
  authorId: string;
  postId: string;
  colony: ColonyRow;
  notarisedAt: number | null;
  /** Published, not held (and for a comment: its post too). */
  live: boolean;
  /** A draft or scheduled post. */
  draft: boolean;
  /** What it serves now (for served_content_matches). */
  served: { title?: string; body: string };
  /** The canonical document of the subject as it stands, notarised at `at`. */
  canonical(ctx: Ctx, at: number): Canonical;
}

const usernameOf = (ctx: Ctx, id: string) => users.findById(ctx, id)?.username ?? "";

function postSubject(post: posts.PostRow, colony: ColonyRow): Subject {
  return {
    type: "post",
    id: post.id,
    authorId: post.authorId,
    postId: post.id,
    colony,
    notarisedAt: post.notarisedAt,
    live: post.state === "published" && !post.held,
    draft: post.state !== "published",
    served: { title: post.title, body: post.body },
    canonical: (ctx, at) =>
      postCanonical({
        subjectId: post.id,
        postType: post.postType,
        authorId: post.authorId,
        authorUsername: usernameOf(ctx, post.authorId),
        colonyId: colony.id,
        colonyName: colony.name,
        title: post.title,
        body: post.body,
        createdAt: post.createdAt,
        instance: ctx.config.publicUrl,
        notarisedAt: at,
      }),
  };
}

function commentSubject(c: comments.CommentRow, post: posts.PostRow, colony: ColonyRow): Subject {
  return {
    type: "comment",
    id: c.id,
    authorId: c.authorId,
    postId: c.postId,
    colony,
    notarisedAt: c.notarisedAt,
    live: !c.held && post.state === "published" && !post.held,
    draft: false,
    served: { body: c.body },
    canonical: (ctx, at) =>
      commentCanonical({
        subjectId: c.id,
        postId: c.postId,
        parentId: c.parentId,
        authorId: c.authorId,
        authorUsername: usernameOf(ctx, c.authorId),
        colonyId: colony.id,
        colonyName: colony.name,
        body: c.body,
        createdAt: c.createdAt,
        instance: ctx.config.publicUrl,
        notarisedAt: at,
      }),
  };
}

/** The subject if the caller may see it; 404 NOT_FOUND otherwise, without saying why. */
function visibleSubject(ctx: Ctx, caller: Caller | null, type: SubjectType, id: string): Subject {
  if (type === "post") {
    const { post, colony } = posts.getVisiblePost(ctx, caller, id);
    return postSubject(post, colony);
  }
  const { comment, post, colony } = comments.getVisibleComment(ctx, caller, id);
  return commentSubject(comment, post, colony);
}

/** The subject as stored now, without a visibility check (inside the notarising transaction). */
function currentSubject(ctx: Ctx, type: SubjectType, id: string): Subject | null {
  if (type === "post") {
    const post = posts.findPost(ctx, id);
    const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
    return post && colony && post.deletedAt === null ? postSubject(post, colony) : null;
  }
  const c = comments.findComment(ctx, id);
  const post = c ? posts.findPost(ctx, c.postId) : null;
  const colony = c ? colonies.findColony(ctx, c.colonyId) : null;
  return c && post && colony && c.deletedAt === null && post.deletedAt === null ? commentSubject(c, post, colony) : null;
}

function findRecord(ctx: Ctx, type: SubjectType, id: string): NotarisationRow | null {
  return ctx.db.select().from(notarisations).where(and(eq(notarisations.subjectType, type), eq(notarisations.subjectId, id))).get() ?? null;
}

const disabled = () => new ApiError(503, "NOTARISATION_DISABLED", "Notarisation is switched off on this server");

/** POST /posts/{id}/notarise and /comments/{id}/notarise. */
export async function notarise(ctx: Ctx, caller: Caller, type: SubjectType, id: string): Promise<{ record: NotarisationRow; subject: Subject }> {
  const cfg = ctx.config.notarisation;
  if (!cfg.enabled) throw disabled();
  const subject = visibleSubject(ctx, caller, type, id);
  if (subject.authorId !== caller.id) throw forbidden(`Only the author can notarise this ${type}: freezing someone's writing is not anyone else's to do`);
  if (subject.notarisedAt !== null || findRecord(ctx, type, subject.id)) throw conflict(`This ${type} is already notarised`);
  if (subject.draft) throw conflict("This post is still a draft: publish it first");
  if (!subject.live) throw conflict(`This ${type} is held for moderation: it can be notarised once a moderator releases it`);

  const at = ctx.clock.now();
  const json = canonicalJson(subject.canonical(ctx, at));
  const payloadHash = sha256Hex(json);
  const submission = await submitToCalendars(cfg.calendars, fromHex(payloadHash), { allowPrivate: cfg.allowPrivate, timeoutMs: cfg.timeoutMs });
  if (!submission.timestamp) {
    ctx.log.warn("no timestamp calendar accepted a digest", { failed: submission.failed });
    throw new ApiError(502, "UPSTREAM_FAILURE", "No timestamp calendar could be reached; nothing was notarised or frozen, so try again later");
  }
  const proof = serializeDetached(submission.timestamp);
  const now = ctx.clock.now();

  const record = ctx.db.transaction((tx) => {
    // The calendars took time: the subject must still be exactly what was hashed.
    const fresh = currentSubject(ctx, type, subject.id);
    if (!fresh || !fresh.live || canonicalJson(fresh.canonical(ctx, at)) !== json) throw conflict(`This ${type} changed while it was being notarised; nothing was frozen, so try again`);
    const marked = type === "post" ? posts.markNotarised(tx, subject.id, at) : comments.markCommentNotarised(tx, subject.id, at);
    if (!marked) throw conflict(`This ${type} is already notarised`);
    const row = tx
      .insert(notarisations)
      .values({
        id: uuidv7(at),
        subjectType: type,
        subjectId: subject.id,
        authorId: subject.authorId,
        canonical: json,
        payloadHash,
        proof: Buffer.from(proof),
        calendars: submission.accepted,
        proofState: "recorded",
        proofObservedAt: now,
        proofNote: `${submission.accepted.length} of ${cfg.calendars.length} calendars accepted the digest and promised to commit it to Bitcoin; the first upgrade check is due at ${iso(now + FIRST_CHECK_MS)}.`,
        nextCheckAt: now + FIRST_CHECK_MS,
        createdAt: at,
      })
      .returning()
      .get();
    ctx.events.emit(tx, {
      type: "content_notarised",
      actorId: caller.id,
      subject: { type, id: subject.id },
      payload: { subject_type: type, subject_id: subject.id, post_id: subject.postId, colony_id: subject.colony.id, author_id: subject.authorId, payload_hash: payloadHash },
    });
    return row;
  });
  return { record, subject: { ...subject, notarisedAt: at } };
}

/** GET …/notarisation and its files: the record of a subject the caller may see; 404 otherwise. */
export function getNotarisation(ctx: Ctx, caller: Caller | null, type: SubjectType, id: string): { record: NotarisationRow; subject: Subject } {
  const subject = visibleSubject(ctx, caller, type, id);
  const record = findRecord(ctx, type, subject.id);
  if (!record) throw notFound(`This ${type} is not notarised`);
  return { record, subject };
}

/**
 * GET /users/{user_id}/notarisations and its by-username twin: everything one author notarised,
 * newest first, leaving out records whose subject the caller cannot see (deleted, held, in a
 * private colony they cannot read), as the single read would answer 404 for them.
 */
export function listUserNotarisations(ctx: Ctx, caller: Caller | null, ref: users.AuthorRef, page: Page): { items: { record: NotarisationRow; subject: Subject }[]; total: number } {
  const author = users.getListedAuthor(ctx, ref);
  const rows = ctx.db.select().from(notarisations).where(eq(notarisations.authorId, author.id)).orderBy(desc(notarisations.createdAt), desc(notarisations.id)).all();
  const visible: { record: NotarisationRow; subject: Subject }[] = [];
  for (const record of rows) {
    try {
      visible.push({ record, subject: visibleSubject(ctx, caller, record.subjectType, record.subjectId) });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
    }
  }
  return { items: visible.slice(page.offset, page.offset + page.limit), total: visible.length };
}
