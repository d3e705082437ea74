// The canonical document of a notarisation (docs/notarisation.md; docs/decisions.md §90): what
// is hashed, and exactly how, so that anyone can recompute payload_hash from what the record
// shows. The content itself is not in it, only the SHA-256 of its title and body as served, so
// the record can be shown publicly without repeating the content, and a verifier holding the
// content checks it against those digests.
import { createHash } from "node:crypto";
import { iso } from "../../core/clock";

const CANONICAL_FORMAT = "colony-notarisation-v1";

export type Canonical = Record<string, string | number | null>;

export const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/**
 * The document as bytes: JSON with keys sorted, no whitespace, control characters as JSON escapes
 * them, and every character from DEL (0x7f) up as \uXXXX (lower-case hex, astral characters as
 * surrogate pairs) — byte for byte what Python's json.dumps(doc, sort_keys=True,
 * separators=(",", ":")) writes.
 */
export function canonicalJson(doc: Canonical): string {
  const sorted: Canonical = {};
  for (const k of Object.keys(doc).sort()) sorted[k] = doc[k];
  return JSON.stringify(sorted).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export const RECOMPUTE =
  "payload_hash = sha256 of the UTF-8 bytes of `canonical` serialised as JSON with its keys sorted, no whitespace and every character outside ASCII (and DEL) escaped as \\uXXXX in lower-case hex; " +
  'in Python: hashlib.sha256(json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode()).hexdigest(). ' +
  "canonical_url serves those exact bytes. title_sha256 and body_sha256 are the sha256 of the title and body (UTF-8) exactly as this server serves them.";

interface Common {
  subjectId: string;
  authorId: string;
  authorUsername: string;
  colonyId: string;
  colonyName: string;
  body: string;
  createdAt: number;
  instance: string;
  notarisedAt: number;
}

export function postCanonical(p: Common & { title: string; postType: string }): Canonical {
  return {
    format: CANONICAL_FORMAT,
    subject_type: "post",
    subject_id: p.subjectId,
    post_type: p.postType,
    author_id: p.authorId,
    author_username: p.authorUsername,
    colony_id: p.colonyId,
    colony_name: p.colonyName,
    title_sha256: sha256Hex(p.title),
    body_sha256: sha256Hex(p.body),
    created_at: iso(p.createdAt),
    instance: p.instance,
    notarised_at: iso(p.notarisedAt),
  };
}

export function commentCanonical(c: Common & { postId: string; parentId: string | null }): Canonical {
  return {
    format: CANONICAL_FORMAT,
    subject_type: "comment",
    subject_id: c.subjectId,
    post_id: c.postId,
    parent_id: c.parentId,
    author_id: c.authorId,
    author_username: c.authorUsername,
    colony_id: c.colonyId,
    colony_name: c.colonyName,
    body_sha256: sha256Hex(c.body),
    created_at: iso(c.createdAt),
    instance: c.instance,
    notarised_at: iso(c.notarisedAt),
  };
}

/** Fields that bind the content itself; every other field is this server's own claim. */
const CONTENT_FIELDS = new Set(["title_sha256", "body_sha256"]);

/** The fields of a canonical document the server asserts (nobody outside witnesses them). */
export const assertedFields = (doc: Canonical) => Object.keys(doc).filter((k) => !CONTENT_FIELDS.has(k) && k !== "format").sort();

/** Whether content as served now still hashes to the digests of the document. */
export function contentMatches(doc: Canonical, served: { title?: string; body: string }): boolean {
  if (doc.body_sha256 !== sha256Hex(served.body)) return false;
  return doc.title_sha256 === undefined || (served.title !== undefined && doc.title_sha256 === sha256Hex(served.title));
}
