CREATE TABLE `comments` (
	`id` text PRIMARY KEY NOT NULL,
	`post_id` text NOT NULL,
	`colony_id` text NOT NULL,
	`author_id` text NOT NULL,
	`parent_id` text,
	`body` text NOT NULL,
	`body_html` text NOT NULL,
	`score` integer DEFAULT 0 NOT NULL,
	`upvotes` integer DEFAULT 0 NOT NULL,
	`downvotes` integer DEFAULT 0 NOT NULL,
	`wilson` real DEFAULT 0 NOT NULL,
	`held` integer DEFAULT false NOT NULL,
	`held_explanation` text,
	`sentinel_scanned_at` integer,
	`client` text,
	`source` text DEFAULT 'api' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	`deleted_with_post` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX `comments_post_created_idx` ON `comments` (`post_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `comments_post_top_idx` ON `comments` (`post_id`,`score`,`created_at`);--> statement-breakpoint
CREATE INDEX `comments_post_best_idx` ON `comments` (`post_id`,`wilson`,`created_at`);--> statement-breakpoint
CREATE INDEX `comments_parent_idx` ON `comments` (`parent_id`);--> statement-breakpoint
CREATE INDEX `comments_author_created_idx` ON `comments` (`author_id`,`created_at`,`id`);