-- The wiki (spec Part 3 §4.14): pages, revisions and colony wiki editors. The slug index is
-- edited by hand: drizzle-kit quotes the coalesce() expression as if it were a column.
CREATE TABLE `wiki_editors` (
	`colony_id` text NOT NULL,
	`user_id` text NOT NULL,
	`added_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`colony_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `wiki_editors_list_idx` ON `wiki_editors` (`colony_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `wiki_pages` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`category` text,
	`created_by` text NOT NULL,
	`updated_by` text NOT NULL,
	`revision_count` integer NOT NULL,
	`locked_at` integer,
	`locked_by` text,
	`deleted_at` integer,
	`deleted_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wiki_pages_slug_idx` ON `wiki_pages` (coalesce(`colony_id`, ''),`slug`);--> statement-breakpoint
CREATE INDEX `wiki_pages_title_idx` ON `wiki_pages` (`colony_id`,"title" collate nocase,`slug`) WHERE "wiki_pages"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `wiki_pages_category_idx` ON `wiki_pages` (`colony_id`,`category`) WHERE "wiki_pages"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `wiki_pages_deleted_idx` ON `wiki_pages` (`colony_id`,`deleted_at`) WHERE "wiki_pages"."deleted_at" is not null;--> statement-breakpoint
CREATE TABLE `wiki_revisions` (
	`id` text PRIMARY KEY NOT NULL,
	`page_id` text NOT NULL,
	`number` integer NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`category` text,
	`summary` text,
	`author_id` text NOT NULL,
	`chars` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`page_id`) REFERENCES `wiki_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wiki_revisions_page_number_idx` ON `wiki_revisions` (`page_id`,`number`);--> statement-breakpoint
CREATE INDEX `wiki_revisions_author_idx` ON `wiki_revisions` (`author_id`,`created_at`);