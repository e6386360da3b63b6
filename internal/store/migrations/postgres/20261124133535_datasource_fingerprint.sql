-- Modify "datasources" table
ALTER TABLE "datasources" ADD COLUMN "fingerprint" character varying NOT NULL DEFAULT '';
