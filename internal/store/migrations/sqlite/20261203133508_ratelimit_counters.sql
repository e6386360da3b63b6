-- Create "rate_limit_counters" table
CREATE TABLE `rate_limit_counters` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `bucket` text NOT NULL, `window_start` integer NOT NULL, `window_end` integer NOT NULL, `hits` integer NOT NULL DEFAULT (0));
-- Create index "ratelimitcounter_bucket_window_start" to table: "rate_limit_counters"
CREATE UNIQUE INDEX `ratelimitcounter_bucket_window_start` ON `rate_limit_counters` (`bucket`, `window_start`);
-- Create index "ratelimitcounter_window_end" to table: "rate_limit_counters"
CREATE INDEX `ratelimitcounter_window_end` ON `rate_limit_counters` (`window_end`);
