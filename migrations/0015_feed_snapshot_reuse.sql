ALTER TABLE `feed_snapshots` ADD `params` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `feed_snapshots` ADD `served_offsets` text DEFAULT '[]' NOT NULL;