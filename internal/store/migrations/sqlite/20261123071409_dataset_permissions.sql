-- Create "dataset_permissions" table
CREATE TABLE `dataset_permissions` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `dataset_kind` text NOT NULL, `dataset_id` integer NOT NULL, `subject` text NOT NULL, `subject_id` integer NOT NULL DEFAULT (0), `permission` text NOT NULL);
-- Create index "datasetpermission_dataset_kind_dataset_id_subject_subject_id" to table: "dataset_permissions"
CREATE UNIQUE INDEX `datasetpermission_dataset_kind_dataset_id_subject_subject_id` ON `dataset_permissions` (`dataset_kind`, `dataset_id`, `subject`, `subject_id`);
-- Create index "datasetpermission_dataset_kind_subject_subject_id" to table: "dataset_permissions"
CREATE INDEX `datasetpermission_dataset_kind_subject_subject_id` ON `dataset_permissions` (`dataset_kind`, `subject`, `subject_id`);
