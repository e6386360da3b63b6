-- Create "categories" table
CREATE TABLE `categories` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `key` text NOT NULL, `name` text NOT NULL);
-- Create index "categories_key_key" to table: "categories"
CREATE UNIQUE INDEX `categories_key_key` ON `categories` (`key`);
-- Create "licenses" table
CREATE TABLE `licenses` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `type` text NOT NULL, `jurisdiction` text NOT NULL DEFAULT (''), `version` text NOT NULL DEFAULT (''), `title` text NOT NULL, `legal_code_url` text NOT NULL DEFAULT (''));
-- Disable the enforcement of foreign-keys constraints
PRAGMA foreign_keys = off;
-- Create "new_layers" table
CREATE TABLE `new_layers` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `type` text NOT NULL, `kind` text NOT NULL DEFAULT ('vector'), `name` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL, `num_views` integer NOT NULL DEFAULT (0), `num_downloads` integer NOT NULL DEFAULT (0));
-- Copy rows from old table "layers" to new temporary table "new_layers"
INSERT INTO `new_layers` (`id`, `created_at`, `updated_at`, `type`, `kind`, `name`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at`) SELECT `id`, `created_at`, `updated_at`, `type`, `kind`, `name`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at` FROM `layers`;
-- Drop "layers" table after copying rows
DROP TABLE `layers`;
-- Rename temporary table "new_layers" to "layers"
ALTER TABLE `new_layers` RENAME TO `layers`;
-- Create "new_documents" table
CREATE TABLE `new_documents` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL, `num_views` integer NOT NULL DEFAULT (0), `num_downloads` integer NOT NULL DEFAULT (0));
-- Copy rows from old table "documents" to new temporary table "new_documents"
INSERT INTO `new_documents` (`id`, `created_at`, `updated_at`, `name`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at`) SELECT `id`, `created_at`, `updated_at`, `name`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at` FROM `documents`;
-- Drop "documents" table after copying rows
DROP TABLE `documents`;
-- Rename temporary table "new_documents" to "documents"
ALTER TABLE `new_documents` RENAME TO `documents`;
-- Create "new_document_versions" table
CREATE TABLE `new_document_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `state` text NOT NULL DEFAULT ('draft'), `name` text NOT NULL, `description` text NOT NULL DEFAULT (''), `datasource_id` integer NOT NULL, `file_key` text NOT NULL, `file_name` text NOT NULL, `extension` text NOT NULL DEFAULT (''), `content_type` text NOT NULL DEFAULT ('application/octet-stream'), `file_size` integer NOT NULL DEFAULT (0), `created_by` integer NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `tags` json NULL, `categories` json NULL, `published_at` datetime NULL, `document_id` integer NOT NULL, `license_id` integer NULL, CONSTRAINT `document_versions_documents_versions` FOREIGN KEY (`document_id`) REFERENCES `documents` (`id`) ON DELETE NO ACTION, CONSTRAINT `document_versions_licenses_document_versions` FOREIGN KEY (`license_id`) REFERENCES `licenses` (`id`) ON DELETE SET NULL);
-- Copy rows from old table "document_versions" to new temporary table "new_document_versions"
INSERT INTO `new_document_versions` (`id`, `state`, `name`, `description`, `datasource_id`, `file_key`, `file_name`, `extension`, `content_type`, `file_size`, `created_by`, `created_at`, `updated_at`, `published_at`, `document_id`) SELECT `id`, `state`, `name`, `description`, `datasource_id`, `file_key`, `file_name`, `extension`, `content_type`, `file_size`, `created_by`, `created_at`, `updated_at`, `published_at`, `document_id` FROM `document_versions`;
-- Drop "document_versions" table after copying rows
DROP TABLE `document_versions`;
-- Rename temporary table "new_document_versions" to "document_versions"
ALTER TABLE `new_document_versions` RENAME TO `document_versions`;
-- Create "new_sets" table
CREATE TABLE `new_sets` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `title` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL, `num_views` integer NOT NULL DEFAULT (0), `num_downloads` integer NOT NULL DEFAULT (0));
-- Copy rows from old table "sets" to new temporary table "new_sets"
INSERT INTO `new_sets` (`id`, `created_at`, `updated_at`, `title`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at`) SELECT `id`, `created_at`, `updated_at`, `title`, `user_id`, `group_id`, `published_version_id`, `first_published_at`, `published_at` FROM `sets`;
-- Drop "sets" table after copying rows
DROP TABLE `sets`;
-- Rename temporary table "new_sets" to "sets"
ALTER TABLE `new_sets` RENAME TO `sets`;
-- Create "new_set_versions" table
CREATE TABLE `new_set_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `state` text NOT NULL DEFAULT ('draft'), `title` text NOT NULL, `description` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `tags` json NULL, `categories` json NULL, `published_at` datetime NULL, `license_id` integer NULL, `set_id` integer NOT NULL, CONSTRAINT `set_versions_licenses_set_versions` FOREIGN KEY (`license_id`) REFERENCES `licenses` (`id`) ON DELETE SET NULL, CONSTRAINT `set_versions_sets_versions` FOREIGN KEY (`set_id`) REFERENCES `sets` (`id`) ON DELETE CASCADE);
-- Copy rows from old table "set_versions" to new temporary table "new_set_versions"
INSERT INTO `new_set_versions` (`id`, `created_at`, `updated_at`, `state`, `title`, `description`, `created_by`, `published_at`, `set_id`) SELECT `id`, `created_at`, `updated_at`, `state`, `title`, `description`, `created_by`, `published_at`, `set_id` FROM `set_versions`;
-- Drop "set_versions" table after copying rows
DROP TABLE `set_versions`;
-- Rename temporary table "new_set_versions" to "set_versions"
ALTER TABLE `new_set_versions` RENAME TO `set_versions`;
-- Create index "setversion_set_id_state" to table: "set_versions"
CREATE INDEX `setversion_set_id_state` ON `set_versions` (`set_id`, `state`);
-- Create "new_layer_versions" table
CREATE TABLE `new_layer_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `state` text NOT NULL DEFAULT ('draft'), `status` text NOT NULL DEFAULT ('pending'), `progress` real NOT NULL DEFAULT (0), `import_error` text NOT NULL DEFAULT (''), `import_job_id` integer NULL, `name` text NOT NULL, `description` text NOT NULL DEFAULT (''), `reference` text NOT NULL DEFAULT (''), `created_by` integer NOT NULL, `datasource_ids` json NOT NULL, `crs` text NOT NULL DEFAULT (''), `geometry_type` text NOT NULL DEFAULT (''), `geometry_field` text NOT NULL DEFAULT (''), `fields` json NULL, `primary_key_fields` json NULL, `feature_count` integer NOT NULL DEFAULT (0), `empty_geometry_count` integer NOT NULL DEFAULT (0), `extent` json NULL, `tags` json NULL, `categories` json NULL, `published_at` datetime NULL, `bands` json NULL, `raster_resolution` real NULL, `raster_width` integer NOT NULL DEFAULT (0), `raster_height` integer NOT NULL DEFAULT (0), `layer_id` integer NOT NULL, `license_id` integer NULL, CONSTRAINT `layer_versions_layers_versions` FOREIGN KEY (`layer_id`) REFERENCES `layers` (`id`) ON DELETE NO ACTION, CONSTRAINT `layer_versions_licenses_layer_versions` FOREIGN KEY (`license_id`) REFERENCES `licenses` (`id`) ON DELETE SET NULL);
-- Copy rows from old table "layer_versions" to new temporary table "new_layer_versions"
INSERT INTO `new_layer_versions` (`id`, `created_at`, `updated_at`, `state`, `status`, `progress`, `import_error`, `import_job_id`, `name`, `description`, `reference`, `created_by`, `datasource_ids`, `crs`, `geometry_type`, `geometry_field`, `fields`, `primary_key_fields`, `feature_count`, `empty_geometry_count`, `extent`, `published_at`, `bands`, `raster_resolution`, `raster_width`, `raster_height`, `layer_id`) SELECT `id`, `created_at`, `updated_at`, `state`, `status`, `progress`, `import_error`, `import_job_id`, `name`, `description`, `reference`, `created_by`, `datasource_ids`, `crs`, `geometry_type`, `geometry_field`, `fields`, `primary_key_fields`, `feature_count`, `empty_geometry_count`, `extent`, `published_at`, `bands`, `raster_resolution`, `raster_width`, `raster_height`, `layer_id` FROM `layer_versions`;
-- Drop "layer_versions" table after copying rows
DROP TABLE `layer_versions`;
-- Rename temporary table "new_layer_versions" to "layer_versions"
ALTER TABLE `new_layer_versions` RENAME TO `layer_versions`;
-- Create index "layerversion_layer_id_state" to table: "layer_versions"
CREATE INDEX `layerversion_layer_id_state` ON `layer_versions` (`layer_id`, `state`);
-- Enable back the enforcement of foreign-keys constraints
PRAGMA foreign_keys = on;
