package search

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/internal/access"
)

// loadedDoc is a doc read back from the tables, with its index id.
type loadedDoc struct {
	Doc
	id int64
}

// loadChunk bounds the ids of one IN list.
const loadChunk = 500

// loadDocs reads the docs with the given index ids and their child rows.
func (ix *sqlIndex) loadDocs(ctx context.Context, ids []int64) ([]loadedDoc, error) {
	var out []loadedDoc
	for start := 0; start < len(ids); start += loadChunk {
		chunk := ids[start:min(start+loadChunk, len(ids))]
		in := " IN (" + marks(len(chunk)) + ")"
		docs, err := ix.loadWhere(ctx, " WHERE id"+in, anys(chunk), " WHERE doc"+in, anys(chunk))
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// loadAllChunk is the number of docs a full load reads at a time, so
// that the rows read and not yet indexed stay few.
const loadAllChunk = 20000

// loadDocsAfter reads up to loadAllChunk docs whose index ids follow
// after, and their child rows; hi is the highest id of the range read,
// 0 when no doc follows after.
func (ix *sqlIndex) loadDocsAfter(ctx context.Context, after int64) (docs []loadedDoc, hi int64, err error) {
	if err := ix.db.QueryRowContext(ctx, ix.rebind("SELECT COALESCE(max(id), 0) FROM (SELECT id FROM search_docs WHERE id > ? ORDER BY id LIMIT ?) x"),
		after, loadAllChunk).Scan(&hi); err != nil {
		return nil, 0, fmt.Errorf("search: loading docs: %w", err)
	}
	if hi == 0 {
		return nil, 0, nil
	}
	w, args := " WHERE id > ? AND id <= ?", []any{after, hi}
	docs, err = ix.loadWhere(ctx, w, args, " WHERE doc > ? AND doc <= ?", args)
	return docs, hi, err
}

// loadWhere reads the docs docWhere selects and the child rows
// childWhere does.
func (ix *sqlIndex) loadWhere(ctx context.Context, docWhere string, docArgs []any, childWhere string, childArgs []any) ([]loadedDoc, error) {
	var out []loadedDoc
	pos := map[int64]int{}
	{
		rows, err := ix.db.QueryContext(ctx, ix.rebind("SELECT id, doc_type, doc_id, state, kind, title, description, version_status, "+
			"COALESCE(group_id, 0), group_name, COALESCE(user_id, 0), user_name, license_type, license_version, geometry_type, has_z, has_pk, "+
			"raster_resolution, is_imagery, created_at, updated_at, first_published_at, popularity, perm_kind, perm_id, field_names, member_titles, source_type "+
			"FROM search_docs"+docWhere), docArgs...)
		if err != nil {
			return nil, fmt.Errorf("search: loading docs: %w", err)
		}
		for rows.Next() {
			var d loadedDoc
			var res sql.NullFloat64
			var imagery sql.NullBool
			var created, updated int64
			var first sql.NullInt64
			var fields, members string
			if err := rows.Scan(&d.id, &d.Ref.Type, &d.Ref.ID, &d.Ref.State, &d.Kind, &d.Title, &d.Description, &d.VersionStatus,
				&d.GroupID, &d.GroupName, &d.UserID, &d.UserName, &d.LicenseType, &d.LicenseVersion, &d.GeometryType, &d.HasZ, &d.HasPK,
				&res, &imagery, &created, &updated, &first, &d.Popularity, &d.PermKind, &d.PermID, &fields, &members, &d.SourceType); err != nil {
				rows.Close()
				return nil, fmt.Errorf("search: loading docs: %w", err)
			}
			if res.Valid {
				d.RasterResolution = &res.Float64
			}
			if imagery.Valid {
				d.IsImagery = &imagery.Bool
			}
			d.CreatedAt, d.UpdatedAt = time.UnixMicro(created).UTC(), time.UnixMicro(updated).UTC()
			if first.Valid {
				t := time.UnixMicro(first.Int64).UTC()
				d.FirstPublishedAt = &t
			}
			d.FieldNames, d.MemberTitles = lines(fields), lines(members)
			pos[d.id] = len(out)
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search: loading docs: %w", err)
		}
		for _, c := range []struct {
			table, cols string
			add         func(d *loadedDoc, key, name string)
		}{
			{"search_doc_tags", "tag, ''", func(d *loadedDoc, k, _ string) { d.Tags = append(d.Tags, k) }},
			{"search_doc_categories", "key, name", func(d *loadedDoc, k, n string) { d.Categories = append(d.Categories, KeyName{k, n}) }},
			{"search_doc_geotags", "key, name", func(d *loadedDoc, k, n string) { d.Geotags = append(d.Geotags, KeyName{k, n}) }},
			{"search_doc_bands", "band, ''", func(d *loadedDoc, k, _ string) { d.RasterBands = append(d.RasterBands, k) }},
		} {
			rows, err := ix.db.QueryContext(ctx, ix.rebind("SELECT doc, "+c.cols+" FROM "+c.table+childWhere), childArgs...)
			if err != nil {
				return nil, fmt.Errorf("search: loading %s: %w", c.table, err)
			}
			for rows.Next() {
				var id int64
				var k, n string
				if err := rows.Scan(&id, &k, &n); err != nil {
					rows.Close()
					return nil, fmt.Errorf("search: loading %s: %w", c.table, err)
				}
				if i, ok := pos[id]; ok {
					c.add(&out[i], k, n)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, fmt.Errorf("search: loading %s: %w", c.table, err)
			}
		}
	}
	return out, nil
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// loadGrants reads the grants of the given datasets, or of every dataset
// when all is set. Every key asked for is in the answer, with no grants
// when it has none.
func (ix *sqlIndex) loadGrants(ctx context.Context, keys map[permKey]bool, all bool) (map[permKey][]grant, error) {
	out := map[permKey][]grant{}
	if !all && len(keys) == 0 {
		return out, nil
	}
	var conds []string
	var args []any
	for k := range keys {
		out[k] = nil
		conds = append(conds, "(dataset_kind = ? AND dataset_id = ?)")
		args = append(args, k.kind, k.id)
	}
	read := func(where string, args []any) error {
		rows, err := ix.db.QueryContext(ctx, ix.rebind("SELECT dataset_kind, dataset_id, subject, subject_id, permission FROM dataset_permissions"+where), args...)
		if err != nil {
			return fmt.Errorf("search: loading grants: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k permKey
			var subject, perm string
			var sid int
			if err := rows.Scan(&k.kind, &k.id, &subject, &sid, &perm); err != nil {
				return fmt.Errorf("search: loading grants: %w", err)
			}
			out[k] = append(out[k], grant{
				subject: access.Subject{Kind: datasetpermission.Subject(subject), ID: sid},
				level:   access.LevelOf(datasetpermission.Permission(perm)),
			})
		}
		return rows.Err()
	}
	if all {
		return out, read("", nil)
	}
	for start := 0; start < len(conds); start += loadChunk / 2 {
		end := min(start+loadChunk/2, len(conds))
		if err := read(" WHERE "+strings.Join(conds[start:end], " OR "), args[2*start:2*end]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
