package publishing

import (
	"context"
	"strconv"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layerversion"
	"github.com/geopub/geopub/ent/setversion"
	"github.com/geopub/geopub/internal/audit"
)

// publishEntry is the audit entry of publishing version versionID of a
// dataset: kind names the dataset type (layer, table, set, document,
// item), prev its published version before, if any.
func publishEntry(kind, id, label string, group *int, prev *int, versionID, publishID int) audit.Entry {
	e := audit.Entry{Action: kind + ".publish",
		Target: audit.Target{Type: kind, ID: id, Label: label},
		Before: map[string]any{"published_version_id": nil},
		After:  map[string]any{"published_version_id": versionID}}
	if prev != nil {
		e.Before["published_version_id"] = *prev
	}
	if publishID != 0 {
		e.After["publish_id"] = publishID
	}
	if group != nil {
		e.Groups = []int{*group}
	}
	return e
}

// recordStart writes one layer.publish, table.publish or set.publish entry
// per dataset a publish group publishes, when the group is asked for: the
// actor and client address are the request's, whether the versions
// publish at once or once their imports end.
func recordStart(ctx context.Context, c *ent.Client, g *ent.PublishGroup, items Items) error {
	if len(items.Layers) > 0 {
		vs, err := c.LayerVersion.Query().Where(layerversion.IDIn(items.Layers...)).WithLayer().All(ctx)
		if err != nil {
			return err
		}
		for _, v := range vs {
			l := v.Edges.Layer
			if l == nil {
				continue
			}
			if err := audit.Record(ctx, c, publishEntry(string(l.Type), strconv.Itoa(l.ID), l.Name, l.GroupID, l.PublishedVersionID, v.ID, g.ID)); err != nil {
				return err
			}
		}
	}
	if len(items.Sets) > 0 {
		vs, err := c.SetVersion.Query().Where(setversion.IDIn(items.Sets...)).WithSet().All(ctx)
		if err != nil {
			return err
		}
		for _, v := range vs {
			s := v.Edges.Set
			if s == nil {
				continue
			}
			if err := audit.Record(ctx, c, publishEntry("set", strconv.Itoa(s.ID), s.Title, s.GroupID, s.PublishedVersionID, v.ID, g.ID)); err != nil {
				return err
			}
		}
	}
	return nil
}
