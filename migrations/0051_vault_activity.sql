CREATE TABLE `vault_activity` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`action` text NOT NULL,
	`filename` text,
	`actor_id` text,
	`actor_ip` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vault_activity_agent_idx` ON `vault_activity` (`agent_id`,`id`);