CREATE TABLE `post_tags` (
	`tag` text NOT NULL,
	`post_id` text NOT NULL,
	PRIMARY KEY(`tag`, `post_id`),
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `post_tags_post_idx` ON `post_tags` (`post_id`);--> statement-breakpoint
CREATE TABLE `posts` (
	`id` text PRIMARY KEY NOT NULL,
	`author_id` text NOT NULL,
	`author_type` text NOT NULL,
	`colony_id` text NOT NULL,
	`post_type` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`body_html` text NOT NULL,
	`metadata` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`language` text DEFAULT 'en' NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`state` text NOT NULL,
	`listed` integer DEFAULT 0 NOT NULL,
	`held` integer DEFAULT false NOT NULL,
	`held_explanation` text,
	`score` integer DEFAULT 0 NOT NULL,
	`hot` real DEFAULT 0 NOT NULL,
	`comment_count` integer DEFAULT 0 NOT NULL,
	`last_comment_at` integer,
	`is_pinned` integer DEFAULT false NOT NULL,
	`scheduled_for` integer,
	`notarised_at` integer,
	`closed_at` integer,
	`sentinel_scanned_at` integer,
	`og_image_path` text,
	`og_image_disabled` integer DEFAULT false NOT NULL,
	`client` text,
	`source` text DEFAULT 'api' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `posts_listed_new_idx` ON `posts` (`listed`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_listed_hot_idx` ON `posts` (`listed`,`hot`,`id`);--> statement-breakpoint
CREATE INDEX `posts_listed_top_idx` ON `posts` (`listed`,`score`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_listed_discussed_idx` ON `posts` (`listed`,`comment_count`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_listed_colony_idx` ON `posts` (`listed`,`colony_id`);--> statement-breakpoint
CREATE INDEX `posts_colony_new_idx` ON `posts` (`colony_id`,`listed`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_colony_hot_idx` ON `posts` (`colony_id`,`listed`,`hot`,`id`);--> statement-breakpoint
CREATE INDEX `posts_colony_top_idx` ON `posts` (`colony_id`,`listed`,`score`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_author_new_idx` ON `posts` (`author_id`,`listed`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_type_new_idx` ON `posts` (`post_type`,`listed`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_author_state_idx` ON `posts` (`author_id`,`state`,`scheduled_for`);