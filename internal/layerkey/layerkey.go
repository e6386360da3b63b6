// Package layerkey holds the rules of a layer or table version's primary
// key (primary_key_fields): the fields whose values identify a feature
// from one version to the next, which WFS changesets (and later diffs)
// match features by.
//
// A key is set by the publisher on a draft (Check, called by the draft
// update of every front door) or found when a version is imported
// (Detect). Either way it is one or more of the version's fields, each of
// type integer or string (never geometry, double, date, datetime or
// boolean, whose values do not compare exactly), named once, and over the
// version's stored features the fields together have a value in every
// row and never the same values in two rows.
//
// At import, Detect keeps, in this order, the first key that holds over
// the imported rows:
//
//   - the key the version already has (set on the draft, or carried from
//     the version a re-import starts from), so an update keeps the
//     publisher's choice while the data allows it;
//   - the key the source declares: a GeoPackage's primary-key column (see
//     internal/ingest, which keeps it as an attribute field), a PostgreSQL
//     table's primary key (internal/remote/pgsource, kept on the
//     datasource by the scan);
//   - one field named like an id: id, fid, gid, objectid or <layer>_id
//     (case-insensitive), where <layer> is the datasource's layer name or
//     the version's name, spaces as underscores, in a version of at most
//     MaxDetectRows features.
//
// A declared key is taken without reading the rows: the source's own
// constraint holds it unique and non-null (over one datasource; the rows
// of several are checked). The other two are checked over
// the rows inside the import's last transaction, which costs a scan and a
// grouping of every row (9 s for 500,000 on SQLite, holding its write
// lock): so a field named like an id is only tried on versions up to
// MaxDetectRows; a publisher sets the key of a larger one on its draft.
//
// A shapefile's FID (its record number) is never taken as a key: records
// are renumbered whenever a shapefile is rewritten, so it need not name
// the same feature from one version to the next. When no key holds and a
// version's data is one shapefile (or dBase table), the import marks it
// KeyByFID instead: diffs between two such versions match features by
// FID, the last resort before matching by content, and flag the match as
// unstable (internal/versiondiff), which is right when a publisher edits
// a shapefile in place and wrong when a tool rewrote it in another order.
package layerkey

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/featurerows"
	"github.com/geopub/geopub/internal/store"
)

// Field is the name errors give the key in the input.
const Field = "primary_key_fields"

// MaxFields bounds the fields of one key.
const MaxFields = 10

// Check validates fields as the key of draft v, whose stored features it
// checks, and returns the key to record: nil when fields is empty (the
// key is cleared), else fields. schema, when not nil, is the version's
// schema after the same edit (new datasources replace its fields): then
// only the names and types are checked, and the data when the import
// that edit starts completes (Detect keeps the key only if it holds).
// Naming the key the version already has passes unchecked, so a client
// that sends the whole record back while an import runs is not refused.
// Problems are BAD_REQUEST naming the field; a draft whose import has not
// succeeded is CONFLICT, as its data cannot be checked.
func Check(ctx context.Context, st *store.Store, v *ent.LayerVersion, fields []string, schema []schematype.Field) ([]string, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	if schema != nil {
		// The data is checked when the import the edit starts completes.
		if err := checkNames(fields, schema); err != nil {
			return nil, err
		}
		return fields, nil
	}
	if slices.Equal(fields, v.PrimaryKeyFields) {
		return fields, nil
	}
	if err := checkNames(fields, v.Fields); err != nil {
		return nil, err
	}
	if v.Status != layerversion.StatusOk {
		return nil, apperr.New(apperr.Conflict, "Version %d has no imported data to check a primary key against (its import is %s); set it once the import completes.", v.ID, v.Status)
	}
	kv, err := featurerows.KeyCheck(ctx, st, st.DB, v.ID, fields)
	if err != nil {
		return nil, err
	}
	if msg := problem(fields, kv); msg != "" {
		return nil, apperr.Field(Field, msg)
	}
	return fields, nil
}

// checkNames checks that fields are distinct fields of schema of a type a
// key can use.
func checkNames(fields []string, schema []schematype.Field) error {
	if len(fields) > MaxFields {
		return apperr.Field(Field, fmt.Sprintf("A primary key of %d fields is more than the %d it may have.", len(fields), MaxFields))
	}
	seen := map[string]bool{}
	for _, name := range fields {
		if seen[name] {
			return apperr.Field(Field, fmt.Sprintf("Field %q is named twice.", name))
		}
		seen[name] = true
		i := slices.IndexFunc(schema, func(f schematype.Field) bool { return f.Name == name })
		if i < 0 {
			return apperr.Field(Field, fmt.Sprintf("Field %q is not a field of this version.", name))
		}
		if t := schema[i].Type; !usableType(t) {
			return apperr.Field(Field, fmt.Sprintf("Field %q is of type %s: a primary key takes integer or string fields only.", name, t))
		}
	}
	return nil
}

func usableType(t string) bool { return t == "integer" || t == "string" }

// problem describes a violation in words, "" when there is none.
func problem(fields []string, kv featurerows.KeyViolation) string {
	switch {
	case kv.Field != "":
		return fmt.Sprintf("Field %q has no value in %d feature(s): a primary key needs a value in every feature.", kv.Field, kv.Nulls)
	case kv.Duplicate != nil && len(fields) == 1:
		return fmt.Sprintf("Field %q is not unique: the value %v appears in more than one feature.", fields[0], kv.Duplicate[0])
	case kv.Duplicate != nil:
		vals := make([]string, len(kv.Duplicate))
		for i, v := range kv.Duplicate {
			vals[i] = fmt.Sprint(v)
		}
		return fmt.Sprintf("Fields %q are not unique together: the values (%s) appear in more than one feature.", fields, strings.Join(vals, ", "))
	}
	return ""
}

// idNames are the names of fields taken as a key when unique and
// non-null, in order of preference; <layer>_id comes last.
var idNames = []string{"id", "fid", "gid", "objectid"}

// MaxDetectRows is the largest version in which an import looks for a
// field named like an id to be its key (see the package doc).
const MaxDetectRows = 100_000

// Detect chooses the key of version v (see the package doc) once its
// import has written its rows on db (the import's transaction):
// v's own key, else declared, else a field named like an id, the first
// that holds over the rows. declared is taken unchecked when trusted
// (read from one datasource, whose constraint holds it); the declared
// key of several datasources is checked, as their rows may repeat each
// other's values. layerNames are the names <layer>_id is built from. It
// returns nil when none holds.
func Detect(ctx context.Context, st *store.Store, db featurerows.Querier, v *ent.LayerVersion, rows int64, declared []string, trusted bool, layerNames ...string) ([]string, error) {
	holds := func(key []string) (bool, error) {
		if len(key) == 0 || checkNames(key, v.Fields) != nil {
			return false, nil
		}
		kv, err := featurerows.KeyCheck(ctx, st, db, v.ID, key)
		return err == nil && kv.OK(), err
	}
	if ok, err := holds(v.PrimaryKeyFields); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return v.PrimaryKeyFields, nil
	}
	if len(declared) > 0 && checkNames(declared, v.Fields) == nil {
		if trusted {
			return declared, nil
		}
		if ok, err := holds(declared); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return declared, nil
		}
	}
	if rows > MaxDetectRows {
		return nil, nil
	}
	names := slices.Clone(idNames)
	for _, l := range layerNames {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, strings.ReplaceAll(l, " ", "_")+"_id")
		}
	}
	for _, want := range names {
		for _, f := range v.Fields {
			if !strings.EqualFold(f.Name, want) {
				continue
			}
			if ok, err := holds([]string{f.Name}); err != nil {
				return nil, err
			} else if ok {
				return []string{f.Name}, nil
			}
		}
	}
	return nil, nil
}

// shapefileFormats are the datasource formats whose FIDs are record
// numbers (internal/ingest's classification).
var shapefileFormats = map[string]bool{"application/x-zipped-shp": true, "application/dbf": true}

// KeyByFID reports whether a version whose import found key (nil for
// none) in datasources may have its features matched by FID: no key, and
// one shapefile or dBase table, whose record numbers are unique.
func KeyByFID(key []string, datasources []*ent.Datasource) bool {
	return len(key) == 0 && len(datasources) == 1 && shapefileFormats[datasources[0].Format]
}
