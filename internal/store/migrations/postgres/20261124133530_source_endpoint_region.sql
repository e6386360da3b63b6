-- Modify "sources" table
ALTER TABLE "sources" ADD COLUMN "endpoint" character varying NOT NULL DEFAULT '', ADD COLUMN "region" character varying NOT NULL DEFAULT '';
