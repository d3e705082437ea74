CREATE TABLE `oauth_authorizations` (
	`id` text PRIMARY KEY NOT NULL,
	`client_ref` text NOT NULL,
	`user_id` text NOT NULL,
	`approved_by` text NOT NULL,
	`scope` text NOT NULL,
	`resource` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `oauth_authorizations_user_idx` ON `oauth_authorizations` (`user_id`);--> statement-breakpoint
CREATE INDEX `oauth_authorizations_approver_idx` ON `oauth_authorizations` (`approved_by`);--> statement-breakpoint
CREATE INDEX `oauth_authorizations_client_idx` ON `oauth_authorizations` (`client_ref`);--> statement-breakpoint
CREATE TABLE `oauth_credentials` (
	`hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`authorization_id` text NOT NULL,
	`code_challenge` text,
	`redirect_uri` text,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_credentials_authorization_idx` ON `oauth_credentials` (`authorization_id`);--> statement-breakpoint
CREATE INDEX `oauth_credentials_expires_idx` ON `oauth_credentials` (`expires_at`);