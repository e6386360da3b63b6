package search

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/geopub/geopub/internal/store"
)

// Index is the search engine as callers see it. Put and Delete run in the
// caller's transaction, so the index changes with the write it reflects
// and rolls back with it; Search reads committed state.
type Index interface {
	// Put adds or replaces docs (by Ref).
	Put(ctx context.Context, tx *sql.Tx, docs ...Doc) error
	// Delete removes docs; unknown refs are ignored. When no doc of a
	// dataset remains, its stars go too.
	Delete(ctx context.Context, tx *sql.Tx, refs ...Ref) error
	// Search runs a query; ErrInvalid marks the caller's mistakes.
	Search(ctx context.Context, q Query) (Result, error)
}

// New returns the index of s's dialect: FTS5 on SQLite, tsvector on
// PostgreSQL. Both live in s's database (migration *_search.sql).
func New(s *store.Store) Index {
	return NewForDB(s.DB, s.Dialect)
}

// NewForDB is New for a bare database handle of the given dialect.
func NewForDB(db *sql.DB, dialectName string) Index {
	return &sqlIndex{db: db, pg: dialectName == dialect.Postgres}
}

// sqlIndex implements Index over the store's own database. The two
// dialects share the tables, filters, facets and paging; they differ in
// the full-text part (textSource) and in writing the text (put.go).
type sqlIndex struct {
	db *sql.DB
	pg bool
}

// bm25Weights are the FTS5 column weights in the order of search_fts's
// columns: title, description, tags, categories, geotags, publisher,
// fields, members. They mirror the PostgreSQL A-D weights.
const bm25Weights = "10.0, 2.0, 4.0, 4.0, 4.0, 2.0, 1.0, 1.0"

// rebind turns `?` placeholders into PostgreSQL's `$n`. The package's SQL
// never holds a `?` inside a literal; every value is an argument.
func (ix *sqlIndex) rebind(q string) string {
	if !ix.pg {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// textSource is the FROM clause of a search and its score expression:
// with terms, only matching docs and their relevance; without, every doc
// and a score of 0.
func (ix *sqlIndex) textSource(terms []string) (from string, score string, args []any) {
	switch {
	case len(terms) == 0:
		return "search_docs d", "0", nil
	case ix.pg:
		return "search_docs d CROSS JOIN to_tsquery('english', ?::text) tq", "ts_rank_cd(d.tsv, tq)", []any{tsQuery(terms)}
	default:
		return "search_docs d JOIN (SELECT rowid AS rid, -bm25(search_fts, " + bm25Weights +
			") AS score FROM search_fts WHERE search_fts MATCH ?) m ON m.rid = d.id", "m.score", []any{ftsMatch(terms)}
	}
}

// Search implements Index.
func (ix *sqlIndex) Search(ctx context.Context, q Query) (Result, error) {
	q, terms, err := q.normalized()
	if err != nil {
		return Result{}, err
	}
	var cur *cursor
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor, q.Sort)
		if err != nil {
			return Result{}, err
		}
		cur = &c
	}
	from, score, fromArgs := ix.textSource(terms)
	where, whereArgs := buildFilters(q, ix.pg, terms)
	base := sqlPart{text: from + " WHERE " + where, args: append(append([]any{}, fromArgs...), whereArgs...)}

	tx, err := ix.readTx(ctx)
	if err != nil {
		return Result{}, err
	}
	defer tx.Rollback()

	var res Result
	if res.Hits, res.NextCursor, err = ix.page(ctx, tx, q, base, score, cur); err != nil {
		return Result{}, err
	}
	if q.Facets {
		res.Facets, res.TotalCount, err = ix.facets(ctx, tx, base, q.FacetLimit)
	} else {
		res.TotalCount, err = ix.count(ctx, tx, base)
	}
	if err != nil {
		return Result{}, err
	}
	return res, tx.Commit()
}

// readTx opens the read transaction one search runs in, so the page, the
// total and the facets describe one snapshot.
func (ix *sqlIndex) readTx(ctx context.Context) (*sql.Tx, error) {
	opts := &sql.TxOptions{ReadOnly: true}
	if ix.pg {
		opts.Isolation = sql.LevelRepeatableRead
	} else {
		opts = nil
	}
	tx, err := ix.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("search: beginning a read: %w", err)
	}
	return tx, nil
}

// sqlPart is SQL text with its `?` arguments.
type sqlPart struct {
	text string
	args []any
}

// sortSpec is the ORDER BY of a sort: the key expression over the doc row
// (or the score) and its direction; the index id ascending always follows.
func sortSpec(s Sort, score string) (key string, desc bool) {
	switch s {
	case SortRelevance:
		return score, true
	case SortName:
		return "d.sort_title", false
	case SortNameDesc:
		return "d.sort_title", true
	case SortCreated:
		return "d.created_at", true
	case SortCreatedOld:
		return "d.created_at", false
	case SortUpdated:
		return "d.updated_at", true
	case SortUpdatedOld:
		return "d.updated_at", false
	}
	return "d.popularity", true
}

// page returns one page of hits and the cursor after it.
func (ix *sqlIndex) page(ctx context.Context, tx *sql.Tx, q Query, base sqlPart, score string, cur *cursor) ([]Hit, string, error) {
	key, desc := sortSpec(q.Sort, score)
	textKey := q.Sort == SortName || q.Sort == SortNameDesc
	dir, cmp := "ASC", ">"
	if desc {
		dir, cmp = "DESC", "<"
	}
	inner := "SELECT d.id AS id, d.doc_type AS doc_type, d.doc_id AS doc_id, d.state AS state, d.kind AS kind, d.title AS title, " +
		key + " AS sk, " + score + " AS score FROM " + base.text
	args := append([]any{}, base.args...)
	stmt := "SELECT id, doc_type, doc_id, state, kind, title, sk, score FROM (" + inner + ") r"
	if cur != nil {
		v, err := cur.value(q.Sort)
		if err != nil {
			return nil, "", err
		}
		stmt += " WHERE (r.sk " + cmp + " ? OR (r.sk = ? AND r.id > ?))"
		args = append(args, v, v, cur.ID)
	}
	stmt += " ORDER BY r.sk " + dir + ", r.id ASC LIMIT ?"
	args = append(args, q.Limit+1)
	if cur == nil && q.Offset > 0 {
		stmt += " OFFSET ?"
		args = append(args, q.Offset)
	}
	rows, err := tx.QueryContext(ctx, ix.rebind(stmt), args...)
	if err != nil {
		return nil, "", fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var hits []Hit
	var last cursor
	for rows.Next() {
		var h Hit
		var id int64
		var sk any
		if err := rows.Scan(&id, &h.Ref.Type, &h.Ref.ID, &h.Ref.State, &h.Kind, &h.Title, &sk, &h.Score); err != nil {
			return nil, "", fmt.Errorf("search: %w", err)
		}
		if len(hits) == q.Limit {
			return hits, last.encode(), rows.Err()
		}
		last = cursor{Sort: q.Sort, ID: id}
		if err := last.setKey(sk, textKey); err != nil {
			return nil, "", err
		}
		h.Cursor = last.encode()
		hits = append(hits, h)
	}
	return hits, "", rows.Err()
}
