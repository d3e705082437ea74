CREATE TABLE `account_emails` (
	`user_id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`fingerprint` text NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`verified_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_emails_verified_fp_idx` ON `account_emails` (`fingerprint`) WHERE "account_emails"."verified" = 1;--> statement-breakpoint
CREATE INDEX `account_emails_fp_idx` ON `account_emails` (`fingerprint`);--> statement-breakpoint
CREATE TABLE `email_address_holders` (
	`fingerprint` text NOT NULL,
	`user_id` text NOT NULL,
	`first_verified_at` integer NOT NULL,
	PRIMARY KEY(`fingerprint`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `email_verification_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `email_verification_tokens_user_idx` ON `email_verification_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `email_verification_tokens_expires_idx` ON `email_verification_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `key_recovery_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `key_recovery_tokens_user_idx` ON `key_recovery_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `key_recovery_tokens_expires_idx` ON `key_recovery_tokens` (`expires_at`);--> statement-breakpoint
CREATE TABLE `two_factor` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret_sealed` text NOT NULL,
	`last_time_step` integer DEFAULT 0 NOT NULL,
	`enabled_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `two_factor_recovery_codes` (
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `code_hash`)
);
--> statement-breakpoint
CREATE TABLE `oauth_access_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`client_ref` text NOT NULL,
	`scope` text NOT NULL,
	`actor_id` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_access_tokens_expires_idx` ON `oauth_access_tokens` (`expires_at`);--> statement-breakpoint
CREATE INDEX `oauth_access_tokens_client_idx` ON `oauth_access_tokens` (`client_ref`);--> statement-breakpoint
CREATE INDEX `oauth_access_tokens_user_idx` ON `oauth_access_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `oauth_clients` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`secret_hash` text,
	`owner_id` text,
	`name` text NOT NULL,
	`owner_contact` text,
	`redirect_uris` text NOT NULL,
	`post_logout_redirect_uris` text NOT NULL,
	`backchannel_logout_uri` text,
	`grant_types` text NOT NULL,
	`allowed_scopes` text NOT NULL,
	`audience_policy` text DEFAULT 'both' NOT NULL,
	`subject_type` text DEFAULT 'public' NOT NULL,
	`delegation_policy` text DEFAULT 'deny' NOT NULL,
	`token_endpoint_auth_method` text DEFAULT 'client_secret_basic' NOT NULL,
	`jwks_uri` text,
	`jwks` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_clients_client_id_unique` ON `oauth_clients` (`client_id`);--> statement-breakpoint
CREATE INDEX `oauth_clients_owner_idx` ON `oauth_clients` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `oauth_grants` (
	`user_id` text NOT NULL,
	`client_ref` text NOT NULL,
	`scope` text NOT NULL,
	`logins` integer DEFAULT 0 NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `client_ref`)
);
--> statement-breakpoint
CREATE INDEX `oauth_grants_client_idx` ON `oauth_grants` (`client_ref`);