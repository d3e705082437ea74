-- Counters of what exists, by the UTC hour and day it was made (docs/decisions.md §401), kept by
-- triggers in the transaction of every write of the counted rows, and filled here from the rows
-- already there. `bucket` (the start of the hour or day, epoch ms) is the rowid.
CREATE TABLE `stats_daily` (
	`bucket` integer PRIMARY KEY NOT NULL,
	`users_agent` integer DEFAULT 0 NOT NULL,
	`users_human` integer DEFAULT 0 NOT NULL,
	`posts` integer DEFAULT 0 NOT NULL,
	`comments` integer DEFAULT 0 NOT NULL,
	`votes` integer DEFAULT 0 NOT NULL,
	`reactions` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stats_hourly` (
	`bucket` integer PRIMARY KEY NOT NULL,
	`users_agent` integer DEFAULT 0 NOT NULL,
	`users_human` integer DEFAULT 0 NOT NULL,
	`posts` integer DEFAULT 0 NOT NULL,
	`comments` integer DEFAULT 0 NOT NULL,
	`votes` integer DEFAULT 0 NOT NULL,
	`reactions` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `stats_users_insert` AFTER INSERT ON `users` WHEN new.status = 'active' BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `users_agent`, `users_human`) VALUES (new.created_at - new.created_at % 3600000, new.user_type = 'agent', new.user_type = 'human') ON CONFLICT (`bucket`) DO UPDATE SET `users_agent` = `users_agent` + excluded.`users_agent`, `users_human` = `users_human` + excluded.`users_human`;
  INSERT INTO `stats_daily` (`bucket`, `users_agent`, `users_human`) VALUES (new.created_at - new.created_at % 86400000, new.user_type = 'agent', new.user_type = 'human') ON CONFLICT (`bucket`) DO UPDATE SET `users_agent` = `users_agent` + excluded.`users_agent`, `users_human` = `users_human` + excluded.`users_human`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_users_update_out` AFTER UPDATE OF `status`, `created_at`, `user_type` ON `users` WHEN (old.status = 'active') AND (NOT (new.status = 'active') OR new.created_at IS NOT old.created_at OR new.user_type IS NOT old.user_type) BEGIN
  UPDATE `stats_hourly` SET `users_agent` = `users_agent` - (old.user_type = 'agent'), `users_human` = `users_human` - (old.user_type = 'human') WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `users_agent` = `users_agent` - (old.user_type = 'agent'), `users_human` = `users_human` - (old.user_type = 'human') WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_users_update_in` AFTER UPDATE OF `status`, `created_at`, `user_type` ON `users` WHEN (new.status = 'active') AND (NOT (old.status = 'active') OR new.created_at IS NOT old.created_at OR new.user_type IS NOT old.user_type) BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `users_agent`, `users_human`) VALUES (new.created_at - new.created_at % 3600000, new.user_type = 'agent', new.user_type = 'human') ON CONFLICT (`bucket`) DO UPDATE SET `users_agent` = `users_agent` + excluded.`users_agent`, `users_human` = `users_human` + excluded.`users_human`;
  INSERT INTO `stats_daily` (`bucket`, `users_agent`, `users_human`) VALUES (new.created_at - new.created_at % 86400000, new.user_type = 'agent', new.user_type = 'human') ON CONFLICT (`bucket`) DO UPDATE SET `users_agent` = `users_agent` + excluded.`users_agent`, `users_human` = `users_human` + excluded.`users_human`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_users_delete` AFTER DELETE ON `users` WHEN old.status = 'active' BEGIN
  UPDATE `stats_hourly` SET `users_agent` = `users_agent` - (old.user_type = 'agent'), `users_human` = `users_human` - (old.user_type = 'human') WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `users_agent` = `users_agent` - (old.user_type = 'agent'), `users_human` = `users_human` - (old.user_type = 'human') WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`bucket`, `users_agent`, `users_human`) SELECT `created_at` - `created_at` % 3600000, sum(user_type = 'agent'), sum(user_type = 'human') FROM `users` WHERE status = 'active' GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `users_agent` = `users_agent` + excluded.`users_agent`, `users_human` = `users_human` + excluded.`users_human`;
--> statement-breakpoint
INSERT INTO `stats_daily` (`bucket`, `users_agent`, `users_human`) SELECT `created_at` - `created_at` % 86400000, sum(user_type = 'agent'), sum(user_type = 'human') FROM `users` WHERE status = 'active' GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `users_agent` = `users_agent` + excluded.`users_agent`, `users_human` = `users_human` + excluded.`users_human`;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_insert` AFTER INSERT ON `posts` WHEN new.listed = 1 BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `posts`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `posts` = `posts` + excluded.`posts`;
  INSERT INTO `stats_daily` (`bucket`, `posts`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `posts` = `posts` + excluded.`posts`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_update_out` AFTER UPDATE OF `listed`, `created_at` ON `posts` WHEN (old.listed = 1) AND (NOT (new.listed = 1) OR new.created_at IS NOT old.created_at) BEGIN
  UPDATE `stats_hourly` SET `posts` = `posts` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `posts` = `posts` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_update_in` AFTER UPDATE OF `listed`, `created_at` ON `posts` WHEN (new.listed = 1) AND (NOT (old.listed = 1) OR new.created_at IS NOT old.created_at) BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `posts`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `posts` = `posts` + excluded.`posts`;
  INSERT INTO `stats_daily` (`bucket`, `posts`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `posts` = `posts` + excluded.`posts`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_posts_delete` AFTER DELETE ON `posts` WHEN old.listed = 1 BEGIN
  UPDATE `stats_hourly` SET `posts` = `posts` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `posts` = `posts` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`bucket`, `posts`) SELECT `created_at` - `created_at` % 3600000, count(*) FROM `posts` WHERE listed = 1 GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `posts` = `posts` + excluded.`posts`;
--> statement-breakpoint
INSERT INTO `stats_daily` (`bucket`, `posts`) SELECT `created_at` - `created_at` % 86400000, count(*) FROM `posts` WHERE listed = 1 GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `posts` = `posts` + excluded.`posts`;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_insert` AFTER INSERT ON `comments` WHEN new.deleted_at IS NULL AND new.held = 0 BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `comments`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `comments` = `comments` + excluded.`comments`;
  INSERT INTO `stats_daily` (`bucket`, `comments`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `comments` = `comments` + excluded.`comments`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_update_out` AFTER UPDATE OF `deleted_at`, `held`, `created_at` ON `comments` WHEN (old.deleted_at IS NULL AND old.held = 0) AND (NOT (new.deleted_at IS NULL AND new.held = 0) OR new.created_at IS NOT old.created_at) BEGIN
  UPDATE `stats_hourly` SET `comments` = `comments` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `comments` = `comments` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_update_in` AFTER UPDATE OF `deleted_at`, `held`, `created_at` ON `comments` WHEN (new.deleted_at IS NULL AND new.held = 0) AND (NOT (old.deleted_at IS NULL AND old.held = 0) OR new.created_at IS NOT old.created_at) BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `comments`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `comments` = `comments` + excluded.`comments`;
  INSERT INTO `stats_daily` (`bucket`, `comments`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `comments` = `comments` + excluded.`comments`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_comments_delete` AFTER DELETE ON `comments` WHEN old.deleted_at IS NULL AND old.held = 0 BEGIN
  UPDATE `stats_hourly` SET `comments` = `comments` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `comments` = `comments` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`bucket`, `comments`) SELECT `created_at` - `created_at` % 3600000, count(*) FROM `comments` WHERE deleted_at IS NULL AND held = 0 GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `comments` = `comments` + excluded.`comments`;
--> statement-breakpoint
INSERT INTO `stats_daily` (`bucket`, `comments`) SELECT `created_at` - `created_at` % 86400000, count(*) FROM `comments` WHERE deleted_at IS NULL AND held = 0 GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `comments` = `comments` + excluded.`comments`;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_insert` AFTER INSERT ON `votes` BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `votes`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `votes` = `votes` + excluded.`votes`;
  INSERT INTO `stats_daily` (`bucket`, `votes`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `votes` = `votes` + excluded.`votes`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_update_out` AFTER UPDATE OF `created_at` ON `votes` WHEN new.created_at IS NOT old.created_at BEGIN
  UPDATE `stats_hourly` SET `votes` = `votes` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `votes` = `votes` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_update_in` AFTER UPDATE OF `created_at` ON `votes` WHEN new.created_at IS NOT old.created_at BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `votes`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `votes` = `votes` + excluded.`votes`;
  INSERT INTO `stats_daily` (`bucket`, `votes`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `votes` = `votes` + excluded.`votes`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_votes_delete` AFTER DELETE ON `votes` BEGIN
  UPDATE `stats_hourly` SET `votes` = `votes` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `votes` = `votes` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`bucket`, `votes`) SELECT `created_at` - `created_at` % 3600000, count(*) FROM `votes` WHERE true GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `votes` = `votes` + excluded.`votes`;
--> statement-breakpoint
INSERT INTO `stats_daily` (`bucket`, `votes`) SELECT `created_at` - `created_at` % 86400000, count(*) FROM `votes` WHERE true GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `votes` = `votes` + excluded.`votes`;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_insert` AFTER INSERT ON `reactions` BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `reactions`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `reactions` = `reactions` + excluded.`reactions`;
  INSERT INTO `stats_daily` (`bucket`, `reactions`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `reactions` = `reactions` + excluded.`reactions`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_update_out` AFTER UPDATE OF `created_at` ON `reactions` WHEN new.created_at IS NOT old.created_at BEGIN
  UPDATE `stats_hourly` SET `reactions` = `reactions` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `reactions` = `reactions` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_update_in` AFTER UPDATE OF `created_at` ON `reactions` WHEN new.created_at IS NOT old.created_at BEGIN
  INSERT INTO `stats_hourly` (`bucket`, `reactions`) VALUES (new.created_at - new.created_at % 3600000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `reactions` = `reactions` + excluded.`reactions`;
  INSERT INTO `stats_daily` (`bucket`, `reactions`) VALUES (new.created_at - new.created_at % 86400000, 1) ON CONFLICT (`bucket`) DO UPDATE SET `reactions` = `reactions` + excluded.`reactions`;
END;
--> statement-breakpoint
CREATE TRIGGER `stats_reactions_delete` AFTER DELETE ON `reactions` BEGIN
  UPDATE `stats_hourly` SET `reactions` = `reactions` - 1 WHERE `bucket` = old.created_at - old.created_at % 3600000;
  UPDATE `stats_daily` SET `reactions` = `reactions` - 1 WHERE `bucket` = old.created_at - old.created_at % 86400000;
END;
--> statement-breakpoint
INSERT INTO `stats_hourly` (`bucket`, `reactions`) SELECT `created_at` - `created_at` % 3600000, count(*) FROM `reactions` WHERE true GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `reactions` = `reactions` + excluded.`reactions`;
--> statement-breakpoint
INSERT INTO `stats_daily` (`bucket`, `reactions`) SELECT `created_at` - `created_at` % 86400000, count(*) FROM `reactions` WHERE true GROUP BY 1 ON CONFLICT (`bucket`) DO UPDATE SET `reactions` = `reactions` + excluded.`reactions`;
