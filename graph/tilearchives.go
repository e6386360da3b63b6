package graph

import (
	"context"
	"errors"
	"strconv"

	"github.com/geopub/geopub/ent"
	tarow "github.com/geopub/geopub/ent/tilearchive"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/internal/tilearchives"
)

// tileArchives lists the archives of a layer or set the caller may use
// (the rule the archive URLs serve by), as they stand: one that was never
// asked for has state "none".
func (r *Resolver) tileArchives(ctx context.Context, kind string, id int) ([]*ent.TileArchive, error) {
	out := []*ent.TileArchive{}
	if r.TileArchives == nil {
		return out, nil
	}
	v, err := access.NewViewer(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	for _, svc := range []string{tilearchives.ServiceVectorPMTiles, tilearchives.ServiceMBTiles, tilearchives.ServiceRasterPMTiles} {
		if _, ok := tilearchives.ServiceOf(kind, tilearchives.File(svc)); !ok {
			continue
		}
		if _, err := r.TileArchives.Usable(ctx, v, kind, id, svc); errors.Is(err, tilearchives.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		a, err := r.Client.TileArchive.Query().Where(tarow.OwnerKindEQ(tarow.OwnerKind(kind)), tarow.OwnerID(id),
			tarow.Service(svc)).Only(ctx)
		if ent.IsNotFound(err) {
			a = &ent.TileArchive{OwnerKind: tarow.OwnerKind(kind), OwnerID: id, Service: svc, State: "none"}
		} else if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func archiveRebuilding(a *ent.TileArchive) bool {
	return a.BlobKey != "" && (a.State == tarow.StateQueued || a.State == tarow.StateBuilding)
}

func archivePath(a *ent.TileArchive) string {
	return "/services/tiles/v1/" + string(a.OwnerKind) + "=" + strconv.Itoa(a.OwnerID) + "/" + tilearchives.File(a.Service)
}
