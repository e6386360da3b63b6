package importing

import (
	"cmp"
	"context"

	"github.com/geopub/geopub/ent"
)

// recordProgress stores a running import's progress through c (the
// transaction that wrote the rows it counts) and announces it as an
// import.progress notification committed with it.
func (im *Importer) recordProgress(ctx context.Context, c *ent.Client, v *ent.LayerVersion, jobID int64, f float64) error {
	if n, err := c.LayerVersion.Update().Where(owned(v.ID, jobID)).SetProgress(f).Save(ctx); err != nil || n == 0 {
		return cmp.Or(err, errSuperseded)
	}
	return im.publish(ctx, c, v, "import.progress", map[string]any{"progress": f})
}
