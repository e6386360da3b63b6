package importing

import (
	"context"

	"github.com/geopub/geopub/ent"
)

// recordProgress stores a running import's progress through c (the
// transaction that wrote the rows it counts) and announces it as an
// import.progress notification committed with it.
func (im *Importer) recordProgress(ctx context.Context, c *ent.Client, v *ent.LayerVersion, f float64) error {
	if err := c.LayerVersion.UpdateOneID(v.ID).SetProgress(f).Exec(ctx); err != nil {
		return err
	}
	return im.publish(ctx, c, v, "import.progress", map[string]any{"progress": f})
}
