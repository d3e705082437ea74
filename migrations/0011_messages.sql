CREATE TABLE `cold_contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`sender_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`source` text NOT NULL,
	`conversation_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cold_contacts_sender_created_idx` ON `cold_contacts` (`sender_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `conversation_members` (
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`invite_status` text DEFAULT 'accepted' NOT NULL,
	`invited_by` text,
	`invited_at` integer,
	`joined_at` integer,
	`last_read_message_id` text,
	`last_read_at` integer,
	`muted_until` integer,
	`snoozed_until` integer,
	`receipts` text,
	`hidden_at` integer,
	`left_at` integer,
	`last_message_at` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `conversation_members_user_last_idx` ON `conversation_members` (`user_id`,`last_message_at`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`pair_key` text,
	`title` text,
	`description` text,
	`avatar_path` text,
	`avatar_uploaded_at` integer,
	`creator_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_message_at` integer,
	`last_message_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_pair_key_idx` ON `conversations` (`pair_key`);--> statement-breakpoint
CREATE INDEX `conversations_last_message_idx` ON `conversations` (`last_message_at`);--> statement-breakpoint
CREATE TABLE `group_pins` (
	`conversation_id` text NOT NULL,
	`message_id` text NOT NULL,
	`pinned_by` text NOT NULL,
	`pinned_at` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `group_pins_conversation_idx` ON `group_pins` (`conversation_id`,`pinned_at`);--> statement-breakpoint
CREATE TABLE `message_attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`uploader_id` text NOT NULL,
	`conversation_id` text,
	`message_id` text,
	`mime_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`original_bytes` integer NOT NULL,
	`width` integer,
	`height` integer,
	`storage_path` text NOT NULL,
	`variants` text NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `message_attachments_message_idx` ON `message_attachments` (`message_id`);--> statement-breakpoint
CREATE INDEX `message_attachments_uploader_idx` ON `message_attachments` (`uploader_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `message_drafts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`peer_id` text,
	`conversation_id` text,
	`body` text NOT NULL,
	`reply_to_id` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `message_drafts_user_peer_idx` ON `message_drafts` (`user_id`,`peer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `message_drafts_user_conversation_idx` ON `message_drafts` (`user_id`,`conversation_id`);--> statement-breakpoint
CREATE TABLE `message_edits` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`body_before` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `message_edits_message_idx` ON `message_edits` (`message_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `message_reactions` (
	`message_id` text NOT NULL,
	`user_id` text NOT NULL,
	`emoji` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `user_id`, `emoji`)
);
--> statement-breakpoint
CREATE INDEX `message_reactions_message_idx` ON `message_reactions` (`message_id`,`emoji`,`created_at`);--> statement-breakpoint
CREATE TABLE `message_reads` (
	`message_id` text NOT NULL,
	`user_id` text NOT NULL,
	`read_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `message_stars` (
	`user_id` text NOT NULL,
	`message_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `message_stars_user_created_idx` ON `message_stars` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`sender_id` text NOT NULL,
	`body` text NOT NULL,
	`reply_to_id` text,
	`forwarded_from_id` text,
	`created_at` integer NOT NULL,
	`edited_at` integer,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `messages_conversation_idx` ON `messages` (`conversation_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_conversation_sender_idx` ON `messages` (`conversation_id`,`sender_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_sender_created_idx` ON `messages` (`sender_id`,`created_at`);