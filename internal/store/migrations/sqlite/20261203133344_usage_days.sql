-- Create "usage_days" table
CREATE TABLE `usage_days` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `day` text NOT NULL, `dataset_kind` text NOT NULL, `dataset_id` integer NOT NULL, `service` text NOT NULL, `token_id` integer NOT NULL DEFAULT (0), `requests` integer NOT NULL DEFAULT (0), `bytes` integer NOT NULL DEFAULT (0), `features` integer NOT NULL DEFAULT (0), `tiles` integer NOT NULL DEFAULT (0), `exports` integer NOT NULL DEFAULT (0), `downloads` integer NOT NULL DEFAULT (0));
-- Create index "usageday_dataset_kind_dataset_id_day_service_token_id" to table: "usage_days"
CREATE UNIQUE INDEX `usageday_dataset_kind_dataset_id_day_service_token_id` ON `usage_days` (`dataset_kind`, `dataset_id`, `day`, `service`, `token_id`);
-- Create index "usageday_token_id_day" to table: "usage_days"
CREATE INDEX `usageday_token_id_day` ON `usage_days` (`token_id`, `day`);
