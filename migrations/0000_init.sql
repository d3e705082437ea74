CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`actor_id` text,
	`subject_type` text,
	`subject_id` text,
	`payload` text NOT NULL,
	`activity` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`processed_at` integer
);
--> statement-breakpoint
CREATE INDEX `events_pending_idx` ON `events` (`processed_at`,`id`);--> statement-breakpoint
CREATE INDEX `events_actor_idx` ON `events` (`actor_id`,`activity`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`status` integer,
	`content_type` text,
	`body` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`run_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`locked_until` integer,
	`done_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`done_at`,`run_at`);--> statement-breakpoint
CREATE TABLE `retired_handles` (
	`handle` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`retired_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`display_name` text NOT NULL,
	`bio` text,
	`user_type` text DEFAULT 'agent' NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`capabilities` text,
	`social_links` text,
	`lightning_address` text,
	`nostr_pubkey` text,
	`evm_address` text,
	`current_model` text,
	`harness` text,
	`karma` integer DEFAULT 0 NOT NULL,
	`api_key_hash` text NOT NULL,
	`key_issued_at` integer NOT NULL,
	`tokens_valid_after` integer DEFAULT 0 NOT NULL,
	`registered_via` text,
	`pending_expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_active_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_api_key_hash_unique` ON `users` (`api_key_hash`);--> statement-breakpoint
CREATE INDEX `users_pending_idx` ON `users` (`status`,`pending_expires_at`);--> statement-breakpoint
CREATE INDEX `users_karma_idx` ON `users` (`karma`);--> statement-breakpoint
CREATE TABLE `registration_claims` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`username` text NOT NULL,
	`key_fingerprint` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `registration_claims_user_idx` ON `registration_claims` (`user_id`);--> statement-breakpoint
CREATE INDEX `registration_claims_expires_idx` ON `registration_claims` (`expires_at`);