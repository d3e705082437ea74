-- Counters of what exists, by the UTC hour and day it was made (docs/decisions.md §401), kept by
-- triggers in the transaction of every write of the counted rows. WITHOUT ROWID: a counter row is
-- its key plus one integer, read by ranges of (metric, bucket).
CREATE TABLE `stats_daily` (
	`metric` text NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`metric`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `stats_hourly` (
	`metric` text NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`metric`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `stats_users_insert` AFTER INSERT ON `users` WHEN new.status = 'active' BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('users_' || new.user_type, new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('users_' || new.user_type, new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_users_update_out` AFTER UPDATE OF `status`, `created_at`, `user_type` ON `users` WHEN (old.status = 'active') AND (NOT (new.status = 'active') OR new.created_at IS NOT old.created_at OR new.user_type IS NOT old.user_type) BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'users_' || old.user_type AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'users_' || old.user_type AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_users_update_in` AFTER UPDATE OF `status`, `created_at`, `user_type` ON `users` WHEN (new.status = 'active') AND (NOT (old.status = 'active') OR new.created_at IS NOT old.created_at OR new.user_type IS NOT old.user_type) BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('users_' || new.user_type, new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('users_' || new.user_type, new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_users_delete` AFTER DELETE ON `users` WHEN old.status = 'active' BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'users_' || old.user_type AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'users_' || old.user_type AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) SELECT 'users_' || user_type, `created_at` - `created_at` % 3600000, count(*) FROM `users` WHERE status = 'active' GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) SELECT 'users_' || user_type, `created_at` - `created_at` % 86400000, count(*) FROM `users` WHERE status = 'active' GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_insert` AFTER INSERT ON `posts` WHEN new.listed = 1 BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('posts', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('posts', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_update_out` AFTER UPDATE OF `listed`, `created_at` ON `posts` WHEN (old.listed = 1) AND (NOT (new.listed = 1) OR new.created_at IS NOT old.created_at) BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'posts' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'posts' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_update_in` AFTER UPDATE OF `listed`, `created_at` ON `posts` WHEN (new.listed = 1) AND (NOT (old.listed = 1) OR new.created_at IS NOT old.created_at) BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('posts', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('posts', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_delete` AFTER DELETE ON `posts` WHEN old.listed = 1 BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'posts' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'posts' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) SELECT 'posts', `created_at` - `created_at` % 3600000, count(*) FROM `posts` WHERE listed = 1 GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) SELECT 'posts', `created_at` - `created_at` % 86400000, count(*) FROM `posts` WHERE listed = 1 GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_insert` AFTER INSERT ON `comments` WHEN new.deleted_at IS NULL AND new.held = 0 BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('comments', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('comments', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_update_out` AFTER UPDATE OF `deleted_at`, `held`, `created_at` ON `comments` WHEN (old.deleted_at IS NULL AND old.held = 0) AND (NOT (new.deleted_at IS NULL AND new.held = 0) OR new.created_at IS NOT old.created_at) BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'comments' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'comments' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_update_in` AFTER UPDATE OF `deleted_at`, `held`, `created_at` ON `comments` WHEN (new.deleted_at IS NULL AND new.held = 0) AND (NOT (old.deleted_at IS NULL AND old.held = 0) OR new.created_at IS NOT old.created_at) BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('comments', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('comments', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_delete` AFTER DELETE ON `comments` WHEN old.deleted_at IS NULL AND old.held = 0 BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'comments' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'comments' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) SELECT 'comments', `created_at` - `created_at` % 3600000, count(*) FROM `comments` WHERE deleted_at IS NULL AND held = 0 GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) SELECT 'comments', `created_at` - `created_at` % 86400000, count(*) FROM `comments` WHERE deleted_at IS NULL AND held = 0 GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_insert` AFTER INSERT ON `votes` BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('votes', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('votes', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_update_out` AFTER UPDATE OF `created_at` ON `votes` WHEN new.created_at IS NOT old.created_at BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'votes' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'votes' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_update_in` AFTER UPDATE OF `created_at` ON `votes` WHEN new.created_at IS NOT old.created_at BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('votes', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('votes', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_delete` AFTER DELETE ON `votes` BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'votes' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'votes' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) SELECT 'votes', `created_at` - `created_at` % 3600000, count(*) FROM `votes` GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) SELECT 'votes', `created_at` - `created_at` % 86400000, count(*) FROM `votes` GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_insert` AFTER INSERT ON `reactions` BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('reactions', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('reactions', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_update_out` AFTER UPDATE OF `created_at` ON `reactions` WHEN new.created_at IS NOT old.created_at BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'reactions' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'reactions' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_update_in` AFTER UPDATE OF `created_at` ON `reactions` WHEN new.created_at IS NOT old.created_at BEGIN
  INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) VALUES ('reactions', new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) VALUES ('reactions', new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`metric`, `bucket`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_delete` AFTER DELETE ON `reactions` BEGIN
  UPDATE `stats_hourly` SET `n` = `n` - 1 WHERE `metric` = 'reactions' AND `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `n` = `n` - 1 WHERE `metric` = 'reactions' AND `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`metric`, `bucket`, `n`) SELECT 'reactions', `created_at` - `created_at` % 3600000, count(*) FROM `reactions` GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `stats_daily` (`metric`, `bucket`, `n`) SELECT 'reactions', `created_at` - `created_at` % 86400000, count(*) FROM `reactions` GROUP BY 1, 2;
