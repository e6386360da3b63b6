package arcgis

import (
	"context"
	"fmt"

	"github.com/geopub/geopub/internal/ingest"
	"github.com/geopub/geopub/internal/remote"
)

// Discover walks the services and lists their layers and tables.
func (Kind) Discover(ctx context.Context, c remote.Conn, note func(string)) ([]ingest.Datasource, error) {
	ds, _, err := discover(ctx, c, note)
	return ds, err
}

// discover also returns each datasource's fingerprint, by path.
func discover(ctx context.Context, c remote.Conn, note func(string)) ([]ingest.Datasource, map[string]string, error) {
	s, err := connect(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	svcs, err := s.services(ctx, c.Folders, note)
	if err != nil {
		return nil, nil, err
	}
	note(fmt.Sprintf("ArcGIS REST: %d service(s)", len(svcs)))
	var out []ingest.Datasource
	var lastErr error // when nothing could be read, the scan fails with it
	prints := map[string]string{}
	for _, sv := range svcs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var info serviceInfo
		if err := s.getJSON(ctx, s.at(sv.path(), nil), &info); err != nil {
			lastErr = fmt.Errorf("service %s: %w", clip(sv.path(), 200), err)
			note(fmt.Sprintf("  Skipped service %s: %v", clip(sv.path(), 200), err))
			continue
		}
		ids := make([]int, 0, len(info.Layers)+len(info.Tables))
		for _, l := range info.Layers {
			ids = append(ids, l.ID)
		}
		for _, t := range info.Tables {
			ids = append(ids, t.ID)
		}
		for _, id := range ids {
			r := layerRef{service: sv.path(), id: id}
			li, err := s.layer(ctx, r)
			if err != nil {
				lastErr = fmt.Errorf("%s: %w", clip(r.path(), 200), err)
				note(fmt.Sprintf("  Skipped %s: %v", clip(r.path(), 200), err))
				continue
			}
			if !li.queryable() {
				continue
			}
			n, err := s.count(ctx, r)
			if err != nil {
				lastErr = fmt.Errorf("%s: %w", clip(r.path(), 200), err)
				note(fmt.Sprintf("  Skipped %s: %v", clip(r.path(), 200), err))
				continue
			}
			d := li.datasource(r, n)
			var edit int64
			if li.Editing != nil {
				edit = li.Editing.LastEdit
			}
			d.Fingerprint = Fingerprint(d, edit)
			prints[d.Path] = d.Fingerprint
			out = append(out, d)
		}
	}
	if len(out) == 0 && lastErr != nil {
		return nil, nil, lastErr
	}
	return out, prints, nil
}
