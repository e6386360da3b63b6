-- Drop index "feature_version_id_minx_miny" from table: "features"
-- (box lookups use the GiST index features_version_box; the B-tree
-- ranged over minx only and cost every import a random-order insert).
DROP INDEX "feature_version_id_minx_miny";
