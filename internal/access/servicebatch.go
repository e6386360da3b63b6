package access

import (
	"context"
	"fmt"
	"slices"

	"entgo.io/ent/dialect/sql"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/datasetservice"
	"github.com/geopub/geopub/ent/servicepermission"
	"github.com/geopub/geopub/internal/dataservices"
	"github.com/geopub/geopub/internal/site"
)

// UsableServices answers MayUseService for many owners and a few
// built-in service keys at once, by the same rule, in five queries
// whatever their number: for each owner id, the keys (in keys' order)
// that v may use. Owners of different kinds may be mixed; each owner's
// Type decides which keys attach to it.
func (v *Viewer) UsableServices(ctx context.Context, c *ent.Client, owners []ServiceOwner, keys []string) (map[Kind]map[int][]string, error) {
	out := map[Kind]map[int][]string{}
	byKind := map[Kind][]ServiceOwner{}
	for _, o := range owners {
		byKind[o.Kind] = append(byKind[o.Kind], o)
	}
	if len(byKind) == 0 {
		return out, nil
	}
	settings, err := site.All(ctx, c)
	if err != nil {
		return nil, err
	}
	// A service within another needs that one too.
	asked := slices.Clone(keys)
	for _, k := range keys {
		if s, ok := dataservices.Lookup(k); ok && s.Within != "" && !slices.Contains(asked, s.Within) {
			asked = append(asked, s.Within)
		}
	}
	for kind, os := range byKind {
		b, err := v.loadServiceFacts(ctx, c, kind, os, asked)
		if err != nil {
			return nil, fmt.Errorf("deciding service access: %w", err)
		}
		out[kind] = map[int][]string{}
		for _, o := range os {
			for _, k := range keys {
				if b.usable(o, k, settings) {
					out[kind][o.ID] = append(out[kind][o.ID], k)
				}
			}
		}
	}
	return out, nil
}

// serviceFacts are what the rule reads about owners of one kind.
type serviceFacts struct {
	levels   map[int]Level
	switched map[ownerKey]bool
	listed   map[ownerKey]bool
	onList   map[ownerKey]bool
}

type ownerKey struct {
	id  int
	key string
}

func (v *Viewer) loadServiceFacts(ctx context.Context, c *ent.Client, kind Kind, owners []ServiceOwner, keys []string) (*serviceFacts, error) {
	f := &serviceFacts{levels: map[int]Level{}, switched: map[ownerKey]bool{}, listed: map[ownerKey]bool{}, onList: map[ownerKey]bool{}}
	ids := make([]int, len(owners))
	for i, o := range owners {
		ids[i] = o.ID
		switch {
		case v.SiteAdmin:
			f.levels[o.ID] = Admin
		case o.Group != nil:
			if have, ok := v.groups[*o.Group]; ok {
				f.levels[o.ID] = ownerLevel(have)
			}
		}
	}
	if !v.SiteAdmin {
		var grants []struct {
			DatasetID  int                          `json:"dataset_id"`
			Permission datasetpermission.Permission `json:"permission"`
		}
		err := c.DatasetPermission.Query().
			Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetIDIn(ids...),
				func(s *sql.Selector) { s.Where(v.subjects(s.C)) }).
			Select(datasetpermission.FieldDatasetID, datasetpermission.FieldPermission).Scan(ctx, &grants)
		if err != nil {
			return nil, err
		}
		for _, g := range grants {
			f.levels[g.DatasetID] = max(f.levels[g.DatasetID], LevelOf(g.Permission))
		}
	}
	rows, err := c.DatasetService.Query().Where(datasetservice.OwnerKindEQ(datasetservice.OwnerKind(kind)),
		datasetservice.OwnerIDIn(ids...), datasetservice.KeyIn(keys...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		f.switched[ownerKey{r.OwnerID, r.Key}] = r.Enabled
	}
	lists := c.ServicePermission.Query().Where(servicepermission.OwnerKindEQ(servicepermission.OwnerKind(kind)),
		servicepermission.OwnerIDIn(ids...), servicepermission.ServiceIDIn(keys...))
	var all, mine []struct {
		OwnerID   int    `json:"owner_id"`
		ServiceID string `json:"service_id"`
	}
	if err := lists.Clone().Select(servicepermission.FieldOwnerID, servicepermission.FieldServiceID).Scan(ctx, &all); err != nil {
		return nil, err
	}
	for _, r := range all {
		f.listed[ownerKey{r.OwnerID, r.ServiceID}] = true
	}
	if len(all) > 0 {
		err := lists.Where(func(s *sql.Selector) { s.Where(v.subjects(s.C)) }).
			Select(servicepermission.FieldOwnerID, servicepermission.FieldServiceID).Scan(ctx, &mine)
		if err != nil {
			return nil, err
		}
		for _, r := range mine {
			f.onList[ownerKey{r.OwnerID, r.ServiceID}] = true
		}
	}
	return f, nil
}

// usable is MayUseServiceState over the loaded facts.
func (f *serviceFacts) usable(o ServiceOwner, key string, settings map[string]bool) bool {
	svc, ok := dataservices.Lookup(key)
	if !ok || !slices.ContainsFunc(dataservices.For(o.Type), func(s dataservices.Service) bool { return s.Key == key }) {
		return false
	}
	on, set := f.switched[ownerKey{o.ID, key}]
	if !set {
		on = true
	}
	if svc.SiteSetting {
		on = settings[site.EsriMap]
	}
	if !on {
		return false
	}
	st := ServiceState{ID: key, Service: svc, Enabled: true}
	allowed, decided := byLevel(f.levels[o.ID], o, st)
	if !decided {
		k := ownerKey{o.ID, key}
		allowed = !f.listed[k] || f.onList[k]
	}
	if allowed && svc.Within != "" {
		return f.usable(o, svc.Within, settings)
	}
	return allowed
}
