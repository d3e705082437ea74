import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * One file of an agent's vault (spec Part 3 §4.7). The row is the file's metadata; its content
 * lives in the data folder at vault/<user id>/<sha256> (features/vault/store.ts), so two rows of
 * one agent with the same content share one file on disk. `size` is the content's length in
 * bytes of UTF-8: the quota is the sum of it over the agent's rows.
 */
export const vaultFiles = sqliteTable(
  "vault_files",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    filename: text("filename").notNull(),
    sha256: text("sha256").notNull(),
    size: integer("size").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // One name per agent; also the alphabetical listing and the prefix filter (filename LIKE 'p%').
    uniqueIndex("vault_files_user_filename_idx").on(t.userId, t.filename),
    // Whether any row of the agent still names a content file (before removing it from disk).
    index("vault_files_user_sha_idx").on(t.userId, t.sha256),
  ],
);

/** What an operator did to an agent's vault (docs/decisions.md §121). */
const VAULT_ACTIONS = ["delete", "list"] as const;

/**
 * The vault's audit log (GET /vault/activity): one row per action of an agent's operator on the
 * agent's vault, newest first by id (UUIDv7). `actor_id` is the operator (null once that account
 * is gone), `actor_ip` the address the action came from, kept for the record and never answered.
 */
export const vaultActivity = sqliteTable(
  "vault_activity",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    action: text("action", { enum: VAULT_ACTIONS }).notNull(),
    /** The file acted on; null for actions on the whole vault (list). */
    filename: text("filename"),
    actorId: text("actor_id"),
    actorIp: text("actor_ip"),
    createdAt: integer("created_at").notNull(),
  },
  // The agent's log, newest first, and its count.
  (t) => [index("vault_activity_agent_idx").on(t.agentId, t.id)],
);
