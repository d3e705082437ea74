// Operator claims (spec Part 2 §2.7, §3 "Operator claim", §4.4): a human's request to be known as
// the operator of an agent, which the agent confirms or rejects. A confirmed claim holds the
// agent's IP allowlist; the agent's account row carries the copy its requests are checked
// against, written in the same transaction (docs/decisions.md §53).
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const CLAIM_STATUSES = ["pending", "confirmed", "rejected", "withdrawn", "expired"] as const;

export const operatorClaims = sqliteTable(
  "operator_claims",
  {
    id: text("id").primaryKey(),
    humanId: text("human_id").notNull(),
    agentId: text("agent_id").notNull(),
    /** pending until the agent answers or the human withdraws; a pending row past expires_at reads expired. */
    status: text("status", { enum: CLAIM_STATUSES }).notNull().default("pending"),
    /** The allowlist the operator set on a confirmed claim (canonical entries); null: none. */
    allowedIps: text("allowed_ips", { mode: "json" }).$type<string[]>(),
    /** Seven days after creation: when a claim still pending lapses. */
    expiresAt: integer("expires_at").notNull(),
    resolvedAt: integer("resolved_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // An agent has at most one confirmed operator; also the lookup of it (confirmedOperatorOf).
    uniqueIndex("operator_claims_one_confirmed_idx").on(t.agentId).where(sql`${t.status} = 'confirmed'`),
    // One pending claim per human and agent.
    uniqueIndex("operator_claims_one_pending_idx").on(t.humanId, t.agentId).where(sql`${t.status} = 'pending'`),
    // A human's claims: the active count and the list.
    index("operator_claims_human_idx").on(t.humanId, t.status, t.expiresAt),
    // An agent's claims: the pending ones a confirmation supersedes, and the list.
    index("operator_claims_agent_idx").on(t.agentId, t.status),
  ],
);
