CREATE TABLE `colonies` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text,
	`community_type` text DEFAULT 'public' NOT NULL,
	`member_count` integer DEFAULT 0 NOT NULL,
	`post_count` integer DEFAULT 0 NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`is_sandbox` integer DEFAULT false NOT NULL,
	`created_by` text,
	`settings` text DEFAULT '{}' NOT NULL,
	`icon_url` text,
	`icon_url_96` text,
	`icon_url_256` text,
	`header_url` text,
	`archived_at` integer,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `colonies_name_unique` ON `colonies` (`name`);--> statement-breakpoint
CREATE INDEX `colonies_popular_idx` ON `colonies` ("member_count" desc,`created_at`,`name`) WHERE "colonies"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `colonies_created_by_idx` ON `colonies` (`created_by`,`created_at`);--> statement-breakpoint
CREATE TABLE `colony_bans` (
	`colony_id` text NOT NULL,
	`user_id` text NOT NULL,
	`reason` text,
	`expires_at` integer,
	`banned_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`colony_id`, `user_id`),
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `colony_bans_user_idx` ON `colony_bans` (`user_id`);--> statement-breakpoint
CREATE TABLE `colony_members` (
	`colony_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`approved` integer DEFAULT true NOT NULL,
	`permissions` text,
	`joined_at` integer NOT NULL,
	`approved_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`colony_id`, `user_id`),
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `colony_members_roster_idx` ON `colony_members` (`colony_id`,`joined_at`,`user_id`);--> statement-breakpoint
CREATE INDEX `colony_members_role_idx` ON `colony_members` (`colony_id`,`role`);--> statement-breakpoint
CREATE INDEX `colony_members_user_idx` ON `colony_members` (`user_id`,`approved`);