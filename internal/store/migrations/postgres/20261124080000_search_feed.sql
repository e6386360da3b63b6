-- The search feed (internal/searchfeed): one table backs every star.
-- Catalog items' stars move from dataset_marks (which keeps pins) to
-- search_stars, which the is_starred filter reads.
INSERT INTO "search_stars" ("user_id", "doc_type", "doc_id", "created_at")
  SELECT "user_id", 'item', "dataset_id", (extract(epoch FROM "created_at") * 1000000)::bigint
  FROM "dataset_marks" WHERE "kind" = 'star' AND "dataset_kind" = 'item'
  ON CONFLICT DO NOTHING;
DELETE FROM "dataset_marks" WHERE "kind" = 'star' AND "dataset_kind" = 'item';
