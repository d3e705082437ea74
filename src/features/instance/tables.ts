import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The registration modes an admin may choose (config.ts COLONY_REGISTRATION's values). */
export const REGISTRATION_CHOICES = ["open", "invite", "closed"] as const;

/**
 * The instance's own settings, set by its admins on /admin/settings: one row (id 1) once anything
 * is set. A null column is "not set": the built-in name and description, and the configured
 * registration mode (COLONY_REGISTRATION), apply. The first run's setup link is kept here as a
 * hash, so that every process of the instance recognises it.
 */
export const instanceSettings = sqliteTable("instance_settings", {
  id: integer("id").primaryKey(),
  name: text("name"),
  description: text("description"),
  rules: text("rules"),
  registration: text("registration", { enum: REGISTRATION_CHOICES }),
  /** The hash of the first run's one-time setup token; null once an administrator exists. */
  setupTokenHash: text("setup_token_hash"),
  updatedAt: integer("updated_at").notNull(),
  /** The admin who saved the settings last (null: the server itself). */
  updatedBy: text("updated_by"),
});
