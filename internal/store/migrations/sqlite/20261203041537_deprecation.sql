-- Add column "deprecated_at" to table: "catalog_items"
ALTER TABLE `catalog_items` ADD COLUMN `deprecated_at` datetime NULL;
-- Add column "deprecation_reason" to table: "catalog_items"
ALTER TABLE `catalog_items` ADD COLUMN `deprecation_reason` text NULL;
-- Add column "replacement_type" to table: "catalog_items"
ALTER TABLE `catalog_items` ADD COLUMN `replacement_type` text NULL;
-- Add column "replacement_id" to table: "catalog_items"
ALTER TABLE `catalog_items` ADD COLUMN `replacement_id` integer NULL;
-- Add column "deprecated_at" to table: "documents"
ALTER TABLE `documents` ADD COLUMN `deprecated_at` datetime NULL;
-- Add column "deprecation_reason" to table: "documents"
ALTER TABLE `documents` ADD COLUMN `deprecation_reason` text NULL;
-- Add column "replacement_type" to table: "documents"
ALTER TABLE `documents` ADD COLUMN `replacement_type` text NULL;
-- Add column "replacement_id" to table: "documents"
ALTER TABLE `documents` ADD COLUMN `replacement_id` integer NULL;
-- Add column "deprecated_at" to table: "sets"
ALTER TABLE `sets` ADD COLUMN `deprecated_at` datetime NULL;
-- Add column "deprecation_reason" to table: "sets"
ALTER TABLE `sets` ADD COLUMN `deprecation_reason` text NULL;
-- Add column "replacement_type" to table: "sets"
ALTER TABLE `sets` ADD COLUMN `replacement_type` text NULL;
-- Add column "replacement_id" to table: "sets"
ALTER TABLE `sets` ADD COLUMN `replacement_id` integer NULL;
-- Add column "deprecated_at" to table: "layers"
ALTER TABLE `layers` ADD COLUMN `deprecated_at` datetime NULL;
-- Add column "deprecation_reason" to table: "layers"
ALTER TABLE `layers` ADD COLUMN `deprecation_reason` text NULL;
-- Add column "replacement_type" to table: "layers"
ALTER TABLE `layers` ADD COLUMN `replacement_type` text NULL;
-- Add column "replacement_id" to table: "layers"
ALTER TABLE `layers` ADD COLUMN `replacement_id` integer NULL;
