-- Modify "catalog_items" table
ALTER TABLE "catalog_items" ADD COLUMN "deprecated_at" timestamptz NULL, ADD COLUMN "deprecation_reason" character varying NULL, ADD COLUMN "replacement_type" character varying NULL, ADD COLUMN "replacement_id" bigint NULL;
-- Modify "documents" table
ALTER TABLE "documents" ADD COLUMN "deprecated_at" timestamptz NULL, ADD COLUMN "deprecation_reason" character varying NULL, ADD COLUMN "replacement_type" character varying NULL, ADD COLUMN "replacement_id" bigint NULL;
-- Modify "layers" table
ALTER TABLE "layers" ADD COLUMN "deprecated_at" timestamptz NULL, ADD COLUMN "deprecation_reason" character varying NULL, ADD COLUMN "replacement_type" character varying NULL, ADD COLUMN "replacement_id" bigint NULL;
-- Modify "sets" table
ALTER TABLE "sets" ADD COLUMN "deprecated_at" timestamptz NULL, ADD COLUMN "deprecation_reason" character varying NULL, ADD COLUMN "replacement_type" character varying NULL, ADD COLUMN "replacement_id" bigint NULL;
