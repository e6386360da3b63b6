package search

import (
	"context"
	"database/sql"
	"fmt"
	"time"
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

// Star is one of a user's stars.
type Star struct {
	Type Type
	ID   int
	At   time.Time
}

// All returns every star of a user, of every type.
func (s Stars) All(ctx context.Context, userID int) ([]Star, error) {
	rows, err := s.ix.db.QueryContext(ctx, s.ix.rebind("SELECT doc_type, doc_id, created_at FROM search_stars WHERE user_id = ?"), userID)
	if err != nil {
		return nil, fmt.Errorf("search: reading stars: %w", err)
	}
	defer rows.Close()
	var out []Star
	for rows.Next() {
		var st Star
		var at int64
		if err := rows.Scan(&st.Type, &st.ID, &at); err != nil {
			return nil, fmt.Errorf("search: reading stars: %w", err)
		}
		st.At = time.UnixMicro(at).UTC()
		out = append(out, st)
	}
	return out, rows.Err()
}

// Starrers returns the users who starred a dataset, read through tx.
func (s Stars) Starrers(ctx context.Context, tx *sql.Tx, t Type, id int) ([]int, error) {
	rows, err := tx.QueryContext(ctx, s.ix.rebind("SELECT user_id FROM search_stars WHERE doc_type = ? AND doc_id = ?"), string(t), id)
	if err != nil {
		return nil, fmt.Errorf("search: reading who starred %s %d: %w", t, id, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var u int
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("search: reading who starred %s %d: %w", t, id, err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
