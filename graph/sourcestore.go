package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasource"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/scan"
	"github.com/geopub/geopub/internal/apperr"
)

// saveSourceAndScan creates the source row. Upload content and the first
// scan are added when blob storage and durable jobs are wired in.
func (r *Resolver) saveSourceAndScan(ctx context.Context, create *ent.SourceCreate, files []*graphql.Upload) (*ent.Source, error) {
	if len(files) > 0 {
		return nil, apperr.New(apperr.Invalid, "Uploads are not accepted yet.")
	}
	return create.Save(ctx)
}

// deleteSource removes a source with its scans and datasources.
func (r *Resolver) deleteSource(ctx context.Context, s *ent.Source) error {
	return r.withTx(ctx, func(tx *ent.Tx) error {
		if _, err := tx.Scan.Delete().Where(scanOf(s.ID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.Datasource.Delete().Where(datasourceOf(s.ID)).Exec(ctx); err != nil {
			return err
		}
		return tx.Source.DeleteOneID(s.ID).Exec(ctx)
	})
}

func scanOf(sourceID int) predicate.Scan { return scan.SourceID(sourceID) }

func datasourceOf(sourceID int) predicate.Datasource { return datasource.SourceID(sourceID) }
