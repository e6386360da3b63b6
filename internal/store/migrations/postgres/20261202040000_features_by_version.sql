-- atlas:delimiter ;;

-- The features table is partitioned by version: each layer version's
-- rows are a table of their own (features_v<id>), which the writer
-- (internal/featurerows) fills without indexes and then attaches, so
-- that PostgreSQL builds the version's indexes once, sorted, instead of
-- inserting into shared B-trees row by row (bench/import/RESULTS.md).
-- Readers name "features" and a version, and PostgreSQL reads that
-- version's partition alone. Ent no longer migrates this table (its
-- schema is annotated entsql.Skip): the primary key of a partitioned
-- table must hold the partition key, so it is (version_id, id).
DROP INDEX "feature_version_id_fid";;
DROP INDEX "feature_version_id_cell_minx_maxx_miny_maxy";;
ALTER TABLE "features" RENAME TO "features_unpartitioned";;

CREATE SEQUENCE "features_row_id_seq";;
SELECT setval('features_row_id_seq', coalesce((SELECT max("id") FROM "features_unpartitioned"), 0) + 1, false);;

CREATE TABLE "features" (
  "id" bigint NOT NULL DEFAULT nextval('features_row_id_seq'),
  "version_id" bigint NOT NULL,
  "fid" bigint NOT NULL,
  "geom" bytea NULL,
  "attrs" jsonb NULL,
  "minx" double precision NULL,
  "miny" double precision NULL,
  "maxx" double precision NULL,
  "maxy" double precision NULL,
  "cell" bigint NULL,
  PRIMARY KEY ("version_id", "id")
) PARTITION BY LIST ("version_id");;
ALTER SEQUENCE "features_row_id_seq" OWNED BY "features"."id";;

CREATE INDEX "feature_version_id_fid" ON "features" ("version_id", "fid");;
CREATE INDEX "feature_version_id_cell_minx_maxx_miny_maxy" ON "features" ("version_id", "cell", "minx", "maxx", "miny", "maxy") WHERE (cell IS NOT NULL);;

-- The triggers of 20261128142035, now on every partition.
CREATE TRIGGER "features_cell_insert" BEFORE INSERT ON "features"
  FOR EACH ROW WHEN (NEW.cell IS NULL AND NEW.minx IS NOT NULL)
  EXECUTE FUNCTION features_cell_fill();;
CREATE TRIGGER "features_cell_update" BEFORE UPDATE OF "minx", "miny", "maxx", "maxy" ON "features"
  FOR EACH ROW EXECUTE FUNCTION features_cell_fill();;

-- The rows already stored, a partition per version.
DO $$
DECLARE
  v bigint;
BEGIN
  FOR v IN SELECT DISTINCT "version_id" FROM "features_unpartitioned" LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "features" FOR VALUES IN (%s)', 'features_v' || v, v);
  END LOOP;
END;
$$;;
INSERT INTO "features" ("id", "version_id", "fid", "geom", "attrs", "minx", "miny", "maxx", "maxy", "cell")
  SELECT "id", "version_id", "fid", "geom", "attrs", "minx", "miny", "maxx", "maxy", "cell"
  FROM "features_unpartitioned" ORDER BY "version_id", "id";;
DROP TABLE "features_unpartitioned";;
