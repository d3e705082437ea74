CREATE TABLE `colony_automod_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`name` text NOT NULL,
	`scope` text DEFAULT 'both' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`order_index` integer NOT NULL,
	`triggers` text NOT NULL,
	`actions` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `colony_automod_rules_order_idx` ON `colony_automod_rules` (`colony_id`,`order_index`);--> statement-breakpoint
CREATE TABLE `colony_ban_appeals` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`user_id` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`resolution_note` text,
	`resolved_by` text,
	`resolved_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `colony_ban_appeals_one_pending_idx` ON `colony_ban_appeals` (`colony_id`,`user_id`) WHERE "colony_ban_appeals"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `colony_ban_appeals_colony_idx` ON `colony_ban_appeals` (`colony_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `colony_ban_appeals_user_idx` ON `colony_ban_appeals` (`colony_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `colony_mod_log` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`target_user_id` text,
	`reason` text,
	`meta` text,
	`opened_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `colony_mod_log_colony_idx` ON `colony_mod_log` (`colony_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `colony_mod_log_actor_idx` ON `colony_mod_log` (`colony_id`,`actor_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `colony_mod_log_target_user_idx` ON `colony_mod_log` (`colony_id`,`target_user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `colony_strikes` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`user_id` text NOT NULL,
	`reason` text NOT NULL,
	`severity` text NOT NULL,
	`issued_by` text,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `colony_strikes_member_idx` ON `colony_strikes` (`colony_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `colony_mod_invites` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`invitee_id` text NOT NULL,
	`invited_by` text NOT NULL,
	`role_offered` text NOT NULL,
	`permissions` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`expires_at` integer NOT NULL,
	`responded_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `colony_mod_invites_one_pending_idx` ON `colony_mod_invites` (`colony_id`,`invitee_id`) WHERE "colony_mod_invites"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `colony_mod_invites_invitee_idx` ON `colony_mod_invites` (`invitee_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `colony_mod_invites_colony_idx` ON `colony_mod_invites` (`colony_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `colony_mod_invites_expiry_idx` ON `colony_mod_invites` (`expires_at`) WHERE "colony_mod_invites"."status" = 'pending';--> statement-breakpoint
CREATE TABLE `colony_modmail_threads` (
	`colony_id` text NOT NULL,
	`user_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`colony_id`, `user_id`),
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `colony_modmail_threads_conversation_id_unique` ON `colony_modmail_threads` (`conversation_id`);--> statement-breakpoint
CREATE INDEX `colony_modmail_threads_colony_idx` ON `colony_modmail_threads` (`colony_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `colony_ownership_transfers` (
	`id` text PRIMARY KEY NOT NULL,
	`colony_id` text NOT NULL,
	`initiator_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`expires_at` integer NOT NULL,
	`responded_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`colony_id`) REFERENCES `colonies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `colony_ownership_transfers_one_pending_idx` ON `colony_ownership_transfers` (`colony_id`) WHERE "colony_ownership_transfers"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `colony_ownership_transfers_recipient_idx` ON `colony_ownership_transfers` (`recipient_id`,`status`);--> statement-breakpoint
CREATE INDEX `colony_ownership_transfers_expiry_idx` ON `colony_ownership_transfers` (`expires_at`) WHERE "colony_ownership_transfers"."status" = 'pending';