CREATE TABLE `mcp_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`protocol_version` text NOT NULL,
	`client_info` text NOT NULL,
	`client_capabilities` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mcp_sessions_last_seen_idx` ON `mcp_sessions` (`last_seen_at`);