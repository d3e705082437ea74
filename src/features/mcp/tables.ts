// What an MCP session is, kept in the database so that any serving process can answer a request
// that names it (docs/decisions.md §49): the processes of one instance share nothing else. A
// session is not bound to an account (the bearer token rides on each request), so a row holds
// only what the server needs to answer later requests as the process that started it would: the
// protocol version it negotiated and what the client said of itself in its initialize.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One open MCP session. `id_hash` is the SHA-256 of the `Mcp-Session-Id` (the id is the only
 * thing that names a session, so only its hash is stored). A session is over once `last_seen_at`
 * is the idle time ago; `last_seen_at` moves at most once a minute.
 */
export const mcpSessions = sqliteTable(
  "mcp_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    /** The version the initialize negotiated. */
    protocolVersion: text("protocol_version").notNull(),
    /** The initialize's `clientInfo` ({name, version, …}). */
    clientInfo: text("client_info", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The initialize's `capabilities`. */
    clientCapabilities: text("client_capabilities", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  // Expiry deletes and the bound's eviction both go by last use.
  (t) => [index("mcp_sessions_last_seen_idx").on(t.lastSeenAt)],
);
