-- Drop index "feature_version_id_minx_miny" from table: "features"
-- (box lookups use the R*Tree features_rtree; the B-tree ranged over
-- minx only and cost every import a random-order insert).
DROP INDEX `feature_version_id_minx_miny`;
