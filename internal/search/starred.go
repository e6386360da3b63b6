package search

import (
	"context"
	"fmt"
)

// Starred returns the ids of the datasets of type t that a user starred
// (one query, whatever their number); nil for user 0 (anonymous).
func (s Stars) Starred(ctx context.Context, userID int, t Type) (map[int]bool, error) {
	if userID == 0 {
		return nil, nil
	}
	rows, err := s.ix.db.QueryContext(ctx, s.ix.rebind("SELECT doc_id FROM search_stars WHERE user_id = ? AND doc_type = ?"), userID, string(t))
	if err != nil {
		return nil, fmt.Errorf("search: reading stars: %w", err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("search: reading stars: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}
