-- atlas:delimiter ;;

-- Boxes are indexed by a quadtree cell key in a B-tree on (version_id,
-- cell, minx, maxx, miny, maxy) in place of the GiST on (version_id, box):
-- a B-tree entry costs an import a fraction of a GiST insert
-- (bench/import/RESULTS.md), and the box columns let the exact box test
-- run on the index entries. The keys
-- are computed by the writer (internal/features, cells.go); the function
-- below computes the same key in SQL, for the rows already stored and,
-- through the trigger, for rows written without one (a plain INSERT, or an
-- UPDATE of the box). It must stay equal to cellKey in cells.go; a test
-- compares them.
ALTER TABLE "features" ADD COLUMN "cell" bigint NULL;;

CREATE FUNCTION "features_cell_key"(minx float8, miny float8, maxx float8, maxy float8) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  l int := 30;
  ix bigint;
  iy bigint;
  m bigint := 0;
  b int;
BEGIN
  IF minx IS NULL OR miny IS NULL OR maxx IS NULL OR maxy IS NULL THEN
    RETURN NULL;
  END IF;
  IF NOT (minx >= -180 AND maxx <= 180 AND miny >= -90 AND maxy <= 90 AND minx <= maxx AND miny <= maxy) THEN
    RETURN 1::bigint << 60;
  END IF;
  WHILE l > 0 AND (maxx - minx > 360 / 2.0::float8 ^ l OR maxy - miny > 180 / 2.0::float8 ^ l) LOOP
    l := l - 1;
  END LOOP;
  ix := least(greatest(floor((minx + 180) / (360 / 2.0::float8 ^ l)), 0), 2.0::float8 ^ l - 1)::bigint;
  iy := least(greatest(floor((miny + 90) / (180 / 2.0::float8 ^ l)), 0), 2.0::float8 ^ l - 1)::bigint;
  FOR b IN 0 .. l - 1 LOOP
    m := m | (((ix >> b) & 1) << (2 * b)) | (((iy >> b) & 1) << (2 * b + 1));
  END LOOP;
  RETURN ((m << 1) | 1) << (2 * (30 - l));
END;
$$;;

CREATE FUNCTION "features_cell_fill"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.cell := features_cell_key(NEW.minx, NEW.miny, NEW.maxx, NEW.maxy);
  RETURN NEW;
END;
$$;;

-- COPY from the writer carries the key: the WHEN test alone runs per row.
CREATE TRIGGER "features_cell_insert" BEFORE INSERT ON "features"
  FOR EACH ROW WHEN (NEW.cell IS NULL AND NEW.minx IS NOT NULL)
  EXECUTE FUNCTION features_cell_fill();;
CREATE TRIGGER "features_cell_update" BEFORE UPDATE OF "minx", "miny", "maxx", "maxy" ON "features"
  FOR EACH ROW EXECUTE FUNCTION features_cell_fill();;

UPDATE "features" SET "cell" = features_cell_key("minx", "miny", "maxx", "maxy") WHERE "minx" IS NOT NULL;;

CREATE INDEX "feature_version_id_cell_minx_maxx_miny_maxy" ON "features" ("version_id", "cell", "minx", "maxx", "miny", "maxy") WHERE (cell IS NOT NULL);;
DROP INDEX "features_version_box";;
DROP EXTENSION IF EXISTS btree_gist;;
