CREATE INDEX `colony_bans_colony_idx` ON `colony_bans` (`colony_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `colony_bans_expiry_idx` ON `colony_bans` (`expires_at`) WHERE "colony_bans"."expires_at" is not null;
