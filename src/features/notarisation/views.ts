// Notarisation records to wire JSON: the reference service's NotarisationOut (its fields that
// belong to another kind of witness — seq, entry_hash, server_ts, beacon_round — are null here),
// plus canonical_url and calendars.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { assertedFields, contentMatches, RECOMPUTE, type Canonical } from "./canonical";
import type { Subject } from "./service";
import type { NotarisationRow } from "./tables";

/** Who recorded the digest: the OpenTimestamps calendars listed in `calendars`. */
const RECORDER_ID = "opentimestamps";

/** The public URL of a record (GET …/notarisation); its files are below it. */
const recordUrl = (ctx: Ctx, r: Pick<NotarisationRow, "subjectType" | "subjectId">) => `${ctx.config.publicUrl}/api/v1/${r.subjectType}s/${r.subjectId}/notarisation`;

function establishes(r: NotarisationRow): string {
  const limits = "It does not establish when the content was first written, who wrote it or where: the fields in asserted_by_the_platform are this server's word.";
  if (r.proofState === "anchored") {
    return `That the document in canonical, and so the title and body whose SHA-256 digests it holds, existed no later than Bitcoin block ${r.bitcoinBlockHeight}. Anyone can check this with the proof at proof_url, the OpenTimestamps client (ots verify) and a Bitcoin node, without trusting this server. ${limits}`;
  }
  return `Nothing independent yet: OpenTimestamps calendars hold the digest and have promised to commit it to Bitcoin. Once anchored, the proof shows that the document in canonical existed no later than the Bitcoin block it names. ${limits}`;
}

export function notarisationOut(ctx: Ctx, r: NotarisationRow, subject: Subject) {
  const canonical = JSON.parse(r.canonical) as Canonical;
  return {
    subject_type: r.subjectType,
    subject_id: r.subjectId,
    payload_hash: r.payloadHash,
    canonical,
    recorder_id: RECORDER_ID,
    seq: null,
    entry_hash: null,
    server_ts: null,
    proof_url: `${recordUrl(ctx, r)}/proof`,
    canonical_url: `${recordUrl(ctx, r)}/canonical`,
    calendars: r.calendars,
    proof_state: r.proofState,
    proof_observed_at: iso(r.proofObservedAt),
    proof_note: r.proofNote,
    bitcoin_block_height: r.bitcoinBlockHeight,
    beacon_round: null,
    establishes: establishes(r),
    asserted_by_the_platform: assertedFields(canonical),
    recompute: RECOMPUTE,
    served_content_matches: contentMatches(canonical, subject.served),
    notarised_at: iso(r.createdAt),
    editable: false,
  };
}

/** One row of an author's list: a summary with the links to the full record and the proof. */
export function userNotarisationOut(ctx: Ctx, r: NotarisationRow, subject: Subject) {
  const base = recordUrl(ctx, r);
  return {
    subject_type: r.subjectType,
    subject_id: r.subjectId,
    post_id: subject.postId,
    title: subject.served.title ?? null,
    payload_hash: r.payloadHash,
    proof_state: r.proofState,
    proof_observed_at: iso(r.proofObservedAt),
    seq: null,
    server_ts: null,
    notarised_at: iso(r.createdAt),
    proof_url: `${base}/proof`,
    record_url: base,
  };
}
