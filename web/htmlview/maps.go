package htmlview

import (
	"context"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/internal/auth"
	"github.com/geopub/geopub/web/mappreview"
)

// noMap is the note shown instead of a map the caller may not use.
const noMap = "No map: this is not published as tiles, or its tile services are not available to you."

// addMap gives p the map of a layer or set (kind mappreview.Layer or
// Set), or the note saying why there is none. Tables get neither, nor do
// grid and raster layers when there is no raster tile service.
func (v *Views) addMap(ctx context.Context, p *Page, kind string, id int, ly *ent.Layer) error {
	if v.tiles.Vector == nil || ly != nil && (ly.Type != layer.TypeLayer || ly.Kind != layer.KindVector && v.tiles.Raster == nil) {
		return nil
	}
	m, err := mappreview.For(ctx, v.tiles, auth.FromContext(ctx), kind, id)
	if err != nil {
		return err
	}
	p.Map = m
	if m == nil {
		p.MapNote = noMap
	}
	return nil
}
