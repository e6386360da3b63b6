-- Create "catalog_items" table
CREATE TABLE `catalog_items` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `title` text NOT NULL, `user_id` integer NOT NULL, `group_id` integer NULL, `published_version_id` integer NULL, `first_published_at` datetime NULL, `published_at` datetime NULL);
-- Create "catalog_item_attachments" table
CREATE TABLE `catalog_item_attachments` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `item_id` integer NOT NULL, `document_id` integer NOT NULL, `created_at` datetime NOT NULL);
-- Create index "catalogitemattachment_item_id_document_id" to table: "catalog_item_attachments"
CREATE UNIQUE INDEX `catalogitemattachment_item_id_document_id` ON `catalog_item_attachments` (`item_id`, `document_id`);
-- Create "catalog_item_geotags" table
CREATE TABLE `catalog_item_geotags` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `item_id` integer NOT NULL, `name` text NOT NULL, `geometry` json NOT NULL, `created_at` datetime NOT NULL);
-- Create index "catalogitemgeotag_item_id" to table: "catalog_item_geotags"
CREATE INDEX `catalogitemgeotag_item_id` ON `catalog_item_geotags` (`item_id`);
-- Create "catalog_item_versions" table
CREATE TABLE `catalog_item_versions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `state` text NOT NULL DEFAULT ('draft'), `title` text NOT NULL, `description` text NOT NULL DEFAULT (''), `link_url` text NOT NULL DEFAULT (''), `tags` json NULL, `categories` json NULL, `created_by` integer NOT NULL, `published_at` datetime NULL, `item_id` integer NOT NULL, CONSTRAINT `catalog_item_versions_catalog_items_versions` FOREIGN KEY (`item_id`) REFERENCES `catalog_items` (`id`) ON DELETE NO ACTION);
-- Create index "catalogitemversion_item_id_state" to table: "catalog_item_versions"
CREATE INDEX `catalogitemversion_item_id_state` ON `catalog_item_versions` (`item_id`, `state`);
-- Create "dataset_access_requests" table
CREATE TABLE `dataset_access_requests` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `dataset_kind` text NOT NULL, `dataset_id` integer NOT NULL, `user_id` integer NOT NULL, `status` text NOT NULL DEFAULT ('outstanding'), `closed_at` datetime NULL);
-- Create index "datasetaccessrequest_dataset_kind_dataset_id_user_id_status" to table: "dataset_access_requests"
CREATE INDEX `datasetaccessrequest_dataset_kind_dataset_id_user_id_status` ON `dataset_access_requests` (`dataset_kind`, `dataset_id`, `user_id`, `status`);
-- Create "dataset_marks" table
CREATE TABLE `dataset_marks` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `dataset_kind` text NOT NULL, `dataset_id` integer NOT NULL, `user_id` integer NOT NULL, `kind` text NOT NULL, `created_at` datetime NOT NULL);
-- Create index "datasetmark_dataset_kind_dataset_id_user_id_kind" to table: "dataset_marks"
CREATE UNIQUE INDEX `datasetmark_dataset_kind_dataset_id_user_id_kind` ON `dataset_marks` (`dataset_kind`, `dataset_id`, `user_id`, `kind`);
-- Create "metadata_documents" table
CREATE TABLE `metadata_documents` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `dataset_kind` text NOT NULL, `dataset_id` integer NOT NULL, `version_id` integer NOT NULL, `format` text NOT NULL, `xml` text NOT NULL, `title` text NOT NULL DEFAULT (''), `abstract` text NOT NULL DEFAULT (''), `keywords` json NULL, `bbox` json NULL, `uploaded_by` integer NOT NULL);
-- Create index "metadatadocument_dataset_kind_version_id" to table: "metadata_documents"
CREATE UNIQUE INDEX `metadatadocument_dataset_kind_version_id` ON `metadata_documents` (`dataset_kind`, `version_id`);
