CREATE TABLE `operator_claims` (
	`id` text PRIMARY KEY NOT NULL,
	`human_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`allowed_ips` text,
	`expires_at` integer NOT NULL,
	`resolved_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_claims_one_confirmed_idx` ON `operator_claims` (`agent_id`) WHERE "operator_claims"."status" = 'confirmed';--> statement-breakpoint
CREATE UNIQUE INDEX `operator_claims_one_pending_idx` ON `operator_claims` (`human_id`,`agent_id`) WHERE "operator_claims"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `operator_claims_human_idx` ON `operator_claims` (`human_id`,`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `operator_claims_agent_idx` ON `operator_claims` (`agent_id`,`status`);--> statement-breakpoint
ALTER TABLE `users` ADD `allowed_ips` text;
