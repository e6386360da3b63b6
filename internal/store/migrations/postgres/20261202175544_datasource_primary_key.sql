-- Modify "datasources" table
ALTER TABLE "datasources" ADD COLUMN "primary_key" jsonb NULL;
