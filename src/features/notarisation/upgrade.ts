// The upgrade task (notarisation-upgrade, every 5 minutes; docs/decisions.md §92): for each
// record whose check is due, ask every calendar named by a pending attestation of its proof for
// the timestamp of the commitment it holds (GET <calendar>/timestamp/<hex>), merge what they
// return into the stored `.ots`, and advance proof_state:
//
//   recorded → included   a calendar returned a timestamp for our commitment (merged into its
//                          tree) that does not reach a Bitcoin block yet
//   → anchored            the proof names a Bitcoin block (the lowest height is kept)
//
// proof_observed_at is restamped on each advance only; proof_note says what the last check found.
// Checks follow a widening schedule (10 minutes after notarising, then 30 minutes, 1 hour, 2
// hours, then every 3 hours) and stop once anchored, or 30 days after notarising. Nothing here
// throws for a calendar that is down: that is a note and a later check.
import { and, asc, eq, isNotNull, lte } from "drizzle-orm";
import { upgradeProof, type Upgrade } from "../../adapters/timestamp/calendar";
import { OtsError } from "../../adapters/timestamp/ots";
import { DAY, HOUR, iso, MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { notarisations, type NotarisationRow, type ProofState } from "./tables";

export const UPGRADE_TASK = "notarisation-upgrade";
/** The wait after each check: 30 minutes, 1 hour, 2 hours, then 3 hours from then on. */
const CHECK_INTERVALS_MS = [30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR];
/** No more checks this long after notarising (the proof stays upgradable by anyone with `ots upgrade`). */
const GIVE_UP_AFTER_MS = 30 * DAY;
/** Records checked per run, and how many at once. */
const UPGRADE_BATCH = 50;
const PARALLEL = 4;

/** Checks every record whose check is due; returns how many were checked. */
export async function upgradeDue(ctx: Ctx, limit = UPGRADE_BATCH): Promise<number> {
  if (!ctx.config.notarisation.enabled) return 0;
  const due = ctx.db
    .select()
    .from(notarisations)
    .where(and(isNotNull(notarisations.nextCheckAt), lte(notarisations.nextCheckAt, ctx.clock.now())))
    .orderBy(asc(notarisations.nextCheckAt))
    .limit(limit)
    .all();
  let next = 0;
  const worker = async () => {
    while (next < due.length) await upgradeOne(ctx, due[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, due.length) }, worker));
  return due.length;
}

function summary(up: Upgrade): string {
  const failed = up.answers.filter((a) => a.kind === "error").map((a) => a.calendar);
  if (!up.answers.length) return " None of the calendars named in the proof is one this server may ask (a configured calendar or a public one).";
  return failed.length ? ` ${failed.length} calendar(s) did not answer: ${[...new Set(failed)].join(", ")}.` : "";
}

async function upgradeOne(ctx: Ctx, row: NotarisationRow): Promise<void> {
  const cfg = ctx.config.notarisation;
  let up: Upgrade;
  try {
    up = await upgradeProof(new Uint8Array(row.proof), cfg.calendars, { allowPrivate: cfg.allowPrivate, timeoutMs: cfg.timeoutMs });
  } catch (err) {
    // Only a stored proof that does not parse gets here; asking again will not mend it.
    ctx.log.error("a stored notarisation proof does not parse", { id: row.id, error: err instanceof OtsError ? err.message : String(err) });
    ctx.db.update(notarisations).set({ proofNote: "The stored proof could not be read; no further checks are made.", nextCheckAt: null, lastCheckedAt: ctx.clock.now() }).where(eq(notarisations.id, row.id)).run();
    return;
  }
  for (const a of up.answers) if (a.kind === "error") ctx.log.warn("timestamp calendar did not answer an upgrade", { id: row.id, calendar: a.calendar, error: a.error });

  const now = ctx.clock.now();
  let state: ProofState = row.proofState;
  let observedAt = row.proofObservedAt;
  let height = row.bitcoinBlockHeight;
  const heights = up.facts.bitcoinHeights;
  if (heights.length && state !== "anchored") {
    state = "anchored";
    observedAt = now;
    height = heights[0];
  } else if (up.merged && state === "recorded") {
    state = "included";
    observedAt = now;
  }
  const checks = row.checks + 1;
  const gaveUp = state !== "anchored" && now - row.createdAt >= GIVE_UP_AFTER_MS;
  const nextCheckAt = state === "anchored" || gaveUp ? null : now + CHECK_INTERVALS_MS[Math.min(checks - 1, CHECK_INTERVALS_MS.length - 1)];
  const when = `Checked ${iso(now)}${nextCheckAt ? `; next check ${iso(nextCheckAt)}` : ""}.`;
  const note =
    state === "anchored"
      ? `The proof names Bitcoin block ${height}. That is read from the proof, not checked against a Bitcoin node here: \`ots verify\` checks it.`
      : gaveUp
        ? `Not anchored after ${GIVE_UP_AFTER_MS / DAY} days of checks; no further checks are made. Anyone can still try \`ots upgrade\` on the proof.${summary(up)}`
        : state === "included"
          ? `A calendar has merged the digest into its commitment tree; the Bitcoin anchor is not in the proof yet. ${when}${summary(up)}`
          : `The calendars hold the digest and have not committed it to Bitcoin yet (usually a few hours). ${when}${summary(up)}`;
  ctx.db
    .update(notarisations)
    .set({ proof: Buffer.from(up.proof), proofState: state, proofObservedAt: observedAt, bitcoinBlockHeight: height, proofNote: note, checks, lastCheckedAt: now, nextCheckAt })
    .where(eq(notarisations.id, row.id))
    .run();
}
