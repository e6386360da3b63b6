-- The search feed (internal/searchfeed): one table backs every star.
-- Catalog items' stars move from dataset_marks (which keeps pins) to
-- search_stars, which the is_starred filter reads. Marks are written in
-- UTC: their first 19 characters are the UTC date and time whatever
-- format the driver wrote.
INSERT INTO `search_stars` (`user_id`, `doc_type`, `doc_id`, `created_at`)
  SELECT `user_id`, 'item', `dataset_id`, COALESCE(CAST(strftime('%s', substr(`created_at`, 1, 19)) AS integer) * 1000000, 0)
  FROM `dataset_marks` WHERE `kind` = 'star' AND `dataset_kind` = 'item'
  ON CONFLICT DO NOTHING;
DELETE FROM `dataset_marks` WHERE `kind` = 'star' AND `dataset_kind` = 'item';
