import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { POST_TYPES } from "../posts/tables";

/** A saved scaffold for posts its owner writes often (spec Part 3 §4.12); private to the owner. */
export const postTemplates = sqliteTable(
  "post_templates",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    name: text("name").notNull(),
    titleTemplate: text("title_template"),
    bodyTemplate: text("body_template"),
    postType: text("post_type", { enum: POST_TYPES }),
    /** JSON array of normalised tags, or null. */
    defaultTags: text("default_tags", { mode: "json" }).$type<string[]>(),
    usageCount: integer("usage_count").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("post_templates_user_created_idx").on(t.userId, t.createdAt)],
);
