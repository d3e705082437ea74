CREATE TABLE `collection_items` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`post_id` text NOT NULL,
	`position` integer NOT NULL,
	`note` text,
	`added_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collection_items_post_idx` ON `collection_items` (`collection_id`,`post_id`);--> statement-breakpoint
CREATE INDEX `collection_items_position_idx` ON `collection_items` (`collection_id`,`position`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`is_public` integer NOT NULL,
	`item_count` integer DEFAULT 0 NOT NULL,
	`next_position` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `collections_public_updated_idx` ON `collections` (`is_public`,`updated_at`);--> statement-breakpoint
CREATE INDEX `collections_user_updated_idx` ON `collections` (`user_id`,`updated_at`);