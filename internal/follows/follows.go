package follows

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/riverqueue/river"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetfollow"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/changefeed"
	"github.com/geopub/geopub/internal/notify"
	"github.com/geopub/geopub/internal/search"
	"github.com/geopub/geopub/internal/store"
)

// Enqueuer enqueues a job in a transaction of store.InTx (jobs.Jobs).
type Enqueuer interface {
	InsertTx(ctx context.Context, tx *sql.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error)
}

// Service records follows and notifies followers.
type Service struct {
	Store  *store.Store
	Jobs   Enqueuer
	Notify *notify.Hub
	// API and Site are the roots of the URLs notifications carry, as for
	// webhooks.
	API, Site string
}

// Install makes s notify the followers of the events f appends.
func (s *Service) Install(f *changefeed.Feed) { f.OnAppend(s.fanOut) }

// Dataset names a dataset by its type as the API names it (layer, table,
// set, document, item) and its id.
type Dataset struct {
	Type string
	ID   int
}

// Followed is a dataset a user follows.
type Followed struct {
	Dataset
	Title string
	// Via is "follow" when followed explicitly, "star" when by a star.
	Via   string
	Since time.Time
}

// Set follows (on) or unfollows a dataset for the user v is: NotFound
// unless v may see it. Both are idempotent.
func (s *Service) Set(ctx context.Context, v *access.Viewer, userID int, d Dataset, on bool) error {
	c := s.Store.Client
	if seen, err := titles(ctx, c, v, []Dataset{d}); err != nil {
		return err
	} else if _, ok := seen[d]; !ok {
		return apperr.New(apperr.NotFound, "%s %d not found.", nouns[d.Type], d.ID)
	}
	return c.DatasetFollow.Create().SetUserID(userID).SetDatasetType(datasetfollow.DatasetType(d.Type)).
		SetDatasetID(d.ID).SetFollowing(on).SetCreatedAt(time.Now().UTC()).
		OnConflictColumns(datasetfollow.FieldUserID, datasetfollow.FieldDatasetType, datasetfollow.FieldDatasetID).
		UpdateFollowing().UpdateCreatedAt().Exec(ctx)
}

// List returns what the user v is follows and may still see, newest
// first: explicit follows, and stars not unfollowed.
func (s *Service) List(ctx context.Context, v *access.Viewer, userID int) ([]Followed, error) {
	c := s.Store.Client
	rows, err := c.DatasetFollow.Query().Where(datasetfollow.UserID(userID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("follows: reading follows: %w", err)
	}
	chose := map[Dataset]bool{}
	var out []Followed
	for _, r := range rows {
		d := Dataset{Type: string(r.DatasetType), ID: r.DatasetID}
		chose[d] = true
		if r.Following {
			out = append(out, Followed{Dataset: d, Via: "follow", Since: r.CreatedAt})
		}
	}
	stars, err := search.NewStars(s.Store.DB, s.Store.Dialect).All(ctx, userID)
	if err != nil {
		return nil, err
	}
	for _, st := range stars {
		d := Dataset{Type: string(st.Type), ID: st.ID}
		if _, ok := nouns[d.Type]; ok && !chose[d] {
			out = append(out, Followed{Dataset: d, Via: "star", Since: st.At})
		}
	}
	ds := make([]Dataset, len(out))
	for i, f := range out {
		ds[i] = f.Dataset
	}
	seen, err := titles(ctx, c, v, ds)
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, f := range out {
		if title, ok := seen[f.Dataset]; ok {
			f.Title = title
			kept = append(kept, f)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if !kept[i].Since.Equal(kept[j].Since) {
			return kept[i].Since.After(kept[j].Since)
		}
		return kept[i].Type < kept[j].Type || kept[i].Type == kept[j].Type && kept[i].ID > kept[j].ID
	})
	return kept, nil
}

// followers are the users following d, read through tx: explicit follows,
// and stars not unfollowed.
func followers(ctx context.Context, c *ent.Client, st search.Stars, tx *sql.Tx, d Dataset) ([]int, error) {
	rows, err := c.DatasetFollow.Query().Where(datasetfollow.DatasetTypeEQ(datasetfollow.DatasetType(d.Type)),
		datasetfollow.DatasetID(d.ID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("follows: reading the followers of %s %d: %w", d.Type, d.ID, err)
	}
	chose := map[int]bool{}
	var out []int
	for _, r := range rows {
		chose[r.UserID] = true
		if r.Following {
			out = append(out, r.UserID)
		}
	}
	starrers, err := st.Starrers(ctx, tx, search.Type(d.Type), d.ID)
	if err != nil {
		return nil, err
	}
	for _, u := range starrers {
		if !chose[u] {
			out = append(out, u)
		}
	}
	sort.Ints(out)
	return out, nil
}
