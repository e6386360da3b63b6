package usage

import (
	"context"
	"fmt"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/internal/store"
)

// MaxDays is the longest period one read of figures covers.
const MaxDays = 366

// DefaultDays is the period read when none is given: the last 30 days,
// today included.
const DefaultDays = 30

// Figure is one day's figures of one service: of a dataset (summed over
// tokens) or of a token (summed over datasets).
type Figure struct {
	// Day is the UTC date, YYYY-MM-DD.
	Day     string
	Service string
	Amounts
}

// Period is a range of UTC days, both ends included.
type Period struct{ From, To time.Time }

// ParsePeriod reads from and to (YYYY-MM-DD, either empty): by default
// the DefaultDays days up to today (UTC), or from from on for that many
// days. It refuses malformed dates, to before from and periods longer
// than MaxDays; the message says which.
func ParsePeriod(from, to string, now time.Time) (Period, error) {
	var p Period
	var err error
	today := now.UTC().Truncate(24 * time.Hour)
	if to != "" {
		if p.To, err = time.Parse(time.DateOnly, to); err != nil {
			return Period{}, fmt.Errorf("to must be a date, YYYY-MM-DD: %q is not", to)
		}
	}
	if from != "" {
		if p.From, err = time.Parse(time.DateOnly, from); err != nil {
			return Period{}, fmt.Errorf("from must be a date, YYYY-MM-DD: %q is not", from)
		}
	}
	switch {
	case from == "" && to == "":
		p.To = today
		p.From = today.AddDate(0, 0, -(DefaultDays - 1))
	case from == "":
		p.From = p.To.AddDate(0, 0, -(DefaultDays - 1))
	case to == "":
		p.To = p.From.AddDate(0, 0, DefaultDays-1)
	}
	if p.To.Before(p.From) {
		return Period{}, fmt.Errorf("to (%s) is before from (%s)", p.To.Format(time.DateOnly), p.From.Format(time.DateOnly))
	}
	if days := int(p.To.Sub(p.From).Hours()/24) + 1; days > MaxDays {
		return Period{}, fmt.Errorf("a period covers at most %d days; this one covers %d", MaxDays, days)
	}
	return p, nil
}

// DatasetFigures returns the figures of dataset id of kind in p, by day
// and service (days in order, then services), summed over tokens.
func DatasetFigures(ctx context.Context, st *store.Store, kind Kind, id int, p Period) ([]Figure, error) {
	if kind == NoKind {
		return nil, fmt.Errorf("usage: no dataset kind")
	}
	return figures(ctx, st, p, entsql.And(entsql.EQ("dataset_kind", kind.String()), entsql.EQ("dataset_id", id)))
}

// TokenFigures returns the figures of token id in p, by day and service,
// summed over datasets.
func TokenFigures(ctx context.Context, st *store.Store, id int, p Period) ([]Figure, error) {
	return figures(ctx, st, p, entsql.EQ("token_id", id))
}

func figures(ctx context.Context, st *store.Store, p Period, of *entsql.Predicate) ([]Figure, error) {
	sum := func(c string) string { return "CAST(SUM(" + c + ") AS BIGINT)" }
	q, args := entsql.Dialect(st.Dialect).
		Select("day", "service", sum("requests"), sum("bytes"), sum("features"), sum("tiles"), sum("exports"), sum("downloads")).
		From(entsql.Table(table)).
		Where(entsql.And(of, entsql.GTE("day", p.From.Format(time.DateOnly)), entsql.LTE("day", p.To.Format(time.DateOnly)))).
		GroupBy("day", "service").OrderBy("day", "service").Query()
	rows, err := st.DB.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading usage figures: %w", err)
	}
	defer rows.Close()
	out := []Figure{}
	for rows.Next() {
		var f Figure
		if err := rows.Scan(&f.Day, &f.Service, &f.Requests, &f.Bytes, &f.Features, &f.Tiles, &f.Exports, &f.Downloads); err != nil {
			return nil, fmt.Errorf("reading usage figures: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Total sums figures.
func Total(fs []Figure) Amounts {
	var t Amounts
	for _, f := range fs {
		t.add(f.Amounts)
	}
	return t
}
