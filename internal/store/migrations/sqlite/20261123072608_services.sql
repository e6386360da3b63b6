-- Create "dataset_services" table
CREATE TABLE `dataset_services` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `owner_kind` text NOT NULL, `owner_id` integer NOT NULL, `key` text NOT NULL, `enabled` bool NOT NULL DEFAULT (true), `template_id` integer NULL, `title` text NOT NULL DEFAULT (''), `description` text NOT NULL DEFAULT (''), `urls` json NULL);
-- Create index "datasetservice_owner_kind_owner_id_key" to table: "dataset_services"
CREATE INDEX `datasetservice_owner_kind_owner_id_key` ON `dataset_services` (`owner_kind`, `owner_id`, `key`);
-- Create "external_service_templates" table
CREATE TABLE `external_service_templates` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `title` text NOT NULL, `short_name` text NOT NULL DEFAULT (''), `description` text NOT NULL DEFAULT (''), `template_urls` json NOT NULL, `scope` json NOT NULL, `enabled` bool NOT NULL DEFAULT (true), `access_policy` text NOT NULL DEFAULT ('all-users'));
-- Create "service_permissions" table
CREATE TABLE `service_permissions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `owner_kind` text NOT NULL, `owner_id` integer NOT NULL, `service_id` text NOT NULL, `subject` text NOT NULL, `subject_id` integer NOT NULL DEFAULT (0));
-- Create index "servicepermission_owner_kind_ow_e4fe453f4d235d055e693ae7dbfdcff4" to table: "service_permissions"
CREATE UNIQUE INDEX `servicepermission_owner_kind_ow_e4fe453f4d235d055e693ae7dbfdcff4` ON `service_permissions` (`owner_kind`, `owner_id`, `service_id`, `subject`, `subject_id`);
-- Create "site_settings" table
CREATE TABLE `site_settings` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `enabled` bool NOT NULL);
-- Create index "site_settings_name_key" to table: "site_settings"
CREATE UNIQUE INDEX `site_settings_name_key` ON `site_settings` (`name`);
