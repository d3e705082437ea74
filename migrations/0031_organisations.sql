CREATE TABLE `handles` (
	`handle` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`owner_id` text,
	`expires_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `handles_owner_idx` ON `handles` (`owner_id`);--> statement-breakpoint
INSERT OR IGNORE INTO `handles` (`handle`, `kind`, `owner_id`, `expires_at`, `created_at`)
SELECT `handle`, 'retired', NULL, NULL, `retired_at` FROM `retired_handles`;
--> statement-breakpoint
INSERT OR IGNORE INTO `handles` (`handle`, `kind`, `owner_id`, `expires_at`, `created_at`)
SELECT `handle`, `kind`, `owner_id`, `expires_at`, `created_at` FROM (
  SELECT lower(`username`) AS `handle`, 'user' AS `kind`, `id` AS `owner_id`,
    CASE WHEN `status` = 'pending' THEN coalesce(`pending_expires_at`, 0) END AS `expires_at`, `created_at`
  FROM `users`
  UNION ALL
  SELECT lower(`name`), 'colony', `id`, NULL, `created_at` FROM `colonies`
) ORDER BY `expires_at` IS NOT NULL, `created_at`, `owner_id`;
--> statement-breakpoint
CREATE TABLE `orgs` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`disclosure_mode` text DEFAULT 'opaque' NOT NULL,
	`verified_domain` text,
	`domain_verified_at` integer,
	`created_by` text NOT NULL,
	`member_count` integer DEFAULT 0 NOT NULL,
	`deletion_requested_at` integer,
	`deletion_requested_by` text,
	`deletion_reason` text,
	`deletion_due_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orgs_slug_unique` ON `orgs` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `orgs_verified_domain_idx` ON `orgs` (`verified_domain`) WHERE "orgs"."verified_domain" is not null;--> statement-breakpoint
CREATE INDEX `orgs_created_by_idx` ON `orgs` (`created_by`,`created_at`);--> statement-breakpoint
CREATE TABLE `org_members` (
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`member_visible` integer DEFAULT false NOT NULL,
	`joined_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `user_id`),
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_members_user_idx` ON `org_members` (`user_id`,`joined_at`);--> statement-breakpoint
CREATE INDEX `org_members_org_idx` ON `org_members` (`org_id`,`joined_at`);--> statement-breakpoint
CREATE TABLE `org_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`invitee_id` text NOT NULL,
	`invited_by` text NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`expires_at` integer NOT NULL,
	`responded_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `org_invitations_one_pending_idx` ON `org_invitations` (`org_id`,`invitee_id`) WHERE "org_invitations"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `org_invitations_invitee_idx` ON `org_invitations` (`invitee_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `org_invitations_org_idx` ON `org_invitations` (`org_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `org_domain_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`domain` text NOT NULL,
	`method` text NOT NULL,
	`token` text NOT NULL,
	`expires_at` integer NOT NULL,
	`verified_at` integer,
	`last_checked_at` integer,
	`last_error` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_domain_challenges_org_idx` ON `org_domain_challenges` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `org_resources` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`identifier` text NOT NULL,
	`label` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `org_resources_identifier_unique` ON `org_resources` (`identifier`);--> statement-breakpoint
CREATE INDEX `org_resources_org_idx` ON `org_resources` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `org_delegation_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`resource` text NOT NULL,
	`allowed_scopes` text NOT NULL,
	`min_role` text DEFAULT 'admin' NOT NULL,
	`max_ttl_seconds` integer NOT NULL,
	`member_user_id` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_delegation_grants_org_idx` ON `org_delegation_grants` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `org_delegation_grants_resource_idx` ON `org_delegation_grants` (`org_id`,`resource`,`is_active`);
