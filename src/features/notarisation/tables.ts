import { blob, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const PROOF_STATES = ["recorded", "included", "anchored"] as const;
export type ProofState = (typeof PROOF_STATES)[number];
export type SubjectType = "post" | "comment";

/**
 * One notarisation (spec Part 3 §4.15; docs/notarisation.md): the canonical document of a post or
 * comment as it was hashed, the SHA-256 that left the server, and the OpenTimestamps proof of it
 * (a detached `.ots` file, upgraded in place by the notarisation-upgrade task). At most one per
 * subject, never removed: the freeze it records is permanent.
 */
export const notarisations = sqliteTable(
  "notarisations",
  {
    id: text("id").primaryKey(),
    subjectType: text("subject_type", { enum: ["post", "comment"] }).$type<SubjectType>().notNull(),
    subjectId: text("subject_id").notNull(),
    authorId: text("author_id").notNull(),
    /** The canonical document exactly as hashed: JSON, keys sorted, no whitespace, non-ASCII escaped. */
    canonical: text("canonical").notNull(),
    /** sha256(canonical), hex: the only thing about the content that left the server. */
    payloadHash: text("payload_hash").notNull(),
    /** The detached OpenTimestamps proof (.ots bytes) as last upgraded. */
    proof: blob("proof", { mode: "buffer" }).notNull(),
    /** The calendars that accepted the digest. */
    calendars: text("calendars", { mode: "json" }).$type<string[]>().notNull(),
    proofState: text("proof_state", { enum: PROOF_STATES }).$type<ProofState>().notNull().default("recorded"),
    /** When the current proof_state was established (restamped on each advance). */
    proofObservedAt: integer("proof_observed_at").notNull(),
    /** Why the record is not further along, in words; rewritten by each upgrade check. */
    proofNote: text("proof_note").notNull(),
    /** The lowest Bitcoin block height the proof names, once anchored (read from the proof). */
    bitcoinBlockHeight: integer("bitcoin_block_height"),
    /** Upgrade checks made so far, the last one, and the next one (null: no more). */
    checks: integer("checks").notNull().default(0),
    lastCheckedAt: integer("last_checked_at"),
    nextCheckAt: integer("next_check_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("notarisations_subject_idx").on(t.subjectType, t.subjectId),
    // One author's notarisations, newest first.
    index("notarisations_author_idx").on(t.authorId, t.createdAt),
    // The upgrade task's due records.
    index("notarisations_due_idx").on(t.nextCheckAt),
  ],
);

export type NotarisationRow = typeof notarisations.$inferSelect;
