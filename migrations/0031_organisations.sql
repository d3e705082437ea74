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
