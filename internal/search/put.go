package search

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// docColumns are search_docs's written columns, in the order of docRow.
const docColumns = "doc_type, doc_id, state, kind, title, sort_title, description, version_status, group_id, group_name, " +
	"user_id, user_name, license_type, license_version, geometry_type, has_z, has_pk, raster_resolution, is_imagery, " +
	"created_at, updated_at, first_published_at, popularity, perm_kind, perm_id, field_names, member_titles, source_type"

func docRow(d Doc) []any {
	status := d.VersionStatus
	if status == "" || d.Ref.State == Published {
		status = string(Published)
	}
	var first any
	if d.FirstPublishedAt != nil {
		first = micros(*d.FirstPublishedAt)
	}
	var res, imagery any
	if d.RasterResolution != nil {
		res = *d.RasterResolution
	}
	if d.IsImagery != nil {
		imagery = *d.IsImagery
	}
	return []any{string(d.Ref.Type), d.Ref.ID, string(d.Ref.State), d.Kind, d.Title, strings.ToLower(d.Title), d.Description, status,
		nullID(d.GroupID), d.GroupName, nullID(d.UserID), d.UserName, d.LicenseType, d.LicenseVersion, d.GeometryType,
		d.HasZ, d.HasPK, res, imagery, micros(d.CreatedAt), micros(orNow(d.UpdatedAt, d.CreatedAt)), first, d.Popularity,
		d.PermKind, d.PermID, strings.Join(d.FieldNames, "\n"), strings.Join(d.MemberTitles, "\n"), d.SourceType}
}

func nullID(id int) any {
	if id == 0 {
		return nil
	}
	return id
}

func orNow(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
}

// textColumns are the doc's searchable texts in the order of search_fts's
// columns (and of the PostgreSQL weights in tsvExpr).
func textColumns(d Doc) []any {
	names := func(kn []KeyName) string {
		var b []string
		for _, k := range kn {
			b = append(b, k.Name)
		}
		return strings.Join(b, " ")
	}
	var cats []string
	for _, c := range d.Categories {
		cats = append(cats, c.Name, strings.ReplaceAll(c.Key, "/", " "))
	}
	return []any{d.Title, d.Description, strings.Join(d.Tags, " "), strings.Join(cats, " "), names(d.Geotags),
		strings.TrimSpace(d.GroupName + " " + d.UserName), strings.Join(d.FieldNames, " "), strings.Join(d.MemberTitles, " ")}
}

// Put implements Index.
func (ix *sqlIndex) Put(ctx context.Context, tx *sql.Tx, docs ...Doc) error {
	for _, d := range docs {
		if !d.Ref.Valid() || d.PermKind == "" || d.PermID == 0 || d.CreatedAt.IsZero() {
			return fmt.Errorf("search: doc %s lacks its ref, permission kind and id or creation time", d.Ref)
		}
	}
	if err := ix.pruneChanges(ctx, tx, time.Now()); err != nil {
		return err
	}
	ids := make([]int64, len(docs))
	for i, d := range docs {
		id, err := ix.upsertDoc(ctx, tx, d)
		if err != nil {
			return err
		}
		ids[i] = id
	}
	if err := ix.clearChildren(ctx, tx, ids); err != nil {
		return err
	}
	var tags, cats, geos, bands [][]any
	for i, d := range docs {
		for _, t := range uniq(d.Tags) {
			tags = append(tags, []any{ids[i], t})
		}
		for _, c := range expandCategories(d.Categories) {
			cats = append(cats, []any{ids[i], c.Key, c.Name})
		}
		seen := map[string]bool{}
		for _, g := range d.Geotags {
			if g.Key != "" && !seen[g.Key] {
				seen[g.Key] = true
				geos = append(geos, []any{ids[i], g.Key, g.Name})
			}
		}
		for _, b := range uniq(d.RasterBands) {
			bands = append(bands, []any{ids[i], b})
		}
	}
	for _, batch := range []struct {
		table, cols string
		rows        [][]any
	}{
		{"search_doc_tags", "doc, tag", tags},
		{"search_doc_categories", "doc, key, name", cats},
		{"search_doc_geotags", "doc, key, name", geos},
		{"search_doc_bands", "doc, band", bands},
	} {
		if err := ix.insertRows(ctx, tx, batch.table, batch.cols, batch.rows); err != nil {
			return err
		}
	}
	return nil
}

// upsertDoc writes the doc row (and on PostgreSQL its tsvector), keeping
// the index id of a doc already there so cursors stay valid.
func (ix *sqlIndex) upsertDoc(ctx context.Context, tx *sql.Tx, d Doc) (int64, error) {
	cols := docColumns
	vals := marks(28)
	args := docRow(d)
	var set []string
	for _, c := range strings.Split(cols, ", ") {
		if c != "doc_type" && c != "doc_id" && c != "state" {
			set = append(set, c+" = excluded."+c)
		}
	}
	stmt := "INSERT INTO search_docs (" + cols + ") VALUES (" + vals + ") ON CONFLICT (doc_type, doc_id, state) DO UPDATE SET " +
		strings.Join(set, ", ") + " RETURNING id"
	var id int64
	if err := tx.QueryRowContext(ctx, ix.rebind(stmt), args...).Scan(&id); err != nil {
		return 0, fmt.Errorf("search: indexing %s: %w", d.Ref, err)
	}
	return id, nil
}

// clearChildren removes the child rows of the docs.
func (ix *sqlIndex) clearChildren(ctx context.Context, tx *sql.Tx, ids []int64) error {
	tables := []string{"search_doc_tags", "search_doc_categories", "search_doc_geotags", "search_doc_bands"}
	for start := 0; start < len(ids); start += 500 {
		chunk := anys(ids[start:min(start+500, len(ids))])
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, ix.rebind("DELETE FROM "+t+" WHERE doc IN ("+marks(len(chunk))+")"), chunk...); err != nil {
				return fmt.Errorf("search: clearing %s: %w", t, err)
			}
		}
	}
	return nil
}

// insertRows inserts rows in multi-row statements.
func (ix *sqlIndex) insertRows(ctx context.Context, tx *sql.Tx, table, cols string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	width := len(rows[0])
	per := max(1, 2000/width)
	row := "(" + marks(width) + ")"
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		var args []any
		for _, r := range chunk {
			args = append(args, r...)
		}
		stmt := "INSERT INTO " + table + " (" + cols + ") VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ")
		if _, err := tx.ExecContext(ctx, ix.rebind(stmt), args...); err != nil {
			return fmt.Errorf("search: writing %s: %w", table, err)
		}
	}
	return nil
}

// Delete implements Index.
func (ix *sqlIndex) Delete(ctx context.Context, tx *sql.Tx, refs ...Ref) error {
	for _, r := range refs {
		var id int64
		err := tx.QueryRowContext(ctx, ix.rebind("SELECT id FROM search_docs WHERE doc_type = ? AND doc_id = ? AND state = ?"),
			string(r.Type), r.ID, string(r.State)).Scan(&id)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return fmt.Errorf("search: removing %s: %w", r, err)
		}
		if err := ix.clearChildren(ctx, tx, []int64{id}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, ix.rebind("DELETE FROM search_docs WHERE id = ?"), id); err != nil {
			return fmt.Errorf("search: removing %s: %w", r, err)
		}
		if _, err := tx.ExecContext(ctx, ix.rebind("DELETE FROM search_stars WHERE doc_type = ? AND doc_id = ? AND NOT EXISTS "+
			"(SELECT 1 FROM search_docs WHERE doc_type = ? AND doc_id = ?)"), string(r.Type), r.ID, string(r.Type), r.ID); err != nil {
			return fmt.Errorf("search: removing the stars of %s: %w", r, err)
		}
	}
	return nil
}

// expandCategories files a doc under each category and its ancestors; an
// ancestor's name is the name given for it, else its last key segment.
func expandCategories(cs []KeyName) []KeyName {
	named := map[string]string{}
	for _, c := range cs {
		named[strings.Trim(c.Key, "/")] = c.Name
	}
	var out []KeyName
	seen := map[string]bool{}
	for _, c := range cs {
		parts := strings.Split(strings.Trim(c.Key, "/"), "/")
		for i := range parts {
			key := strings.Join(parts[:i+1], "/")
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			name, ok := named[key]
			if !ok || name == "" {
				name = parts[i]
			}
			out = append(out, KeyName{Key: key, Name: name})
		}
	}
	return out
}

func uniq(vs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// AddPopularity implements Index.
func (ix *sqlIndex) AddPopularity(ctx context.Context, tx *sql.Tx, permKind string, permID int, n int64) error {
	if n == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, ix.rebind("UPDATE search_docs SET popularity = popularity + ? WHERE perm_kind = ? AND perm_id = ?"), n, permKind, permID)
	if err != nil {
		return fmt.Errorf("search: adding popularity: %w", err)
	}
	return nil
}

// Change log pruning: rows older than changesKept go, at most every
// pruneEvery per process, in the transaction of a Put (a writer already).
// search_meta's pruned_seq records the highest seq removed, so a view
// that had not read that far reloads instead of missing changes.
const (
	changesKept = time.Hour
	pruneEvery  = 10 * time.Minute
)

// pruneChanges prunes the change log when this process has not for
// pruneEvery.
func (ix *sqlIndex) pruneChanges(ctx context.Context, tx *sql.Tx, now time.Time) error {
	last := ix.view.prunedAt.Load()
	if now.Unix()-last < int64(pruneEvery/time.Second) || !ix.view.prunedAt.CompareAndSwap(last, now.Unix()) {
		return nil
	}
	var cut int64
	err := tx.QueryRowContext(ctx, ix.rebind("SELECT COALESCE(max(seq), 0) FROM search_changes WHERE at < ?"), now.Add(-changesKept).Unix()).Scan(&cut)
	if err != nil {
		return fmt.Errorf("search: pruning the change log: %w", err)
	}
	if cut == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, ix.rebind("DELETE FROM search_changes WHERE seq <= ?"), cut); err != nil {
		return fmt.Errorf("search: pruning the change log: %w", err)
	}
	_, err = tx.ExecContext(ctx, ix.rebind("INSERT INTO search_meta (key, value) VALUES ('pruned_seq', ?) "+
		"ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE search_meta.value < excluded.value"), cut)
	if err != nil {
		return fmt.Errorf("search: pruning the change log: %w", err)
	}
	return nil
}
