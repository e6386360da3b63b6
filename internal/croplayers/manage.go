package croplayers

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/layer"
	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
)

// CreateInput is what a site administrator gives to make a crop layer.
type CreateInput struct {
	Name string
	// Layer is the layer's id, or its URL (…/layers/{id}/).
	Layer string
	// NameField is the attribute that names each crop feature.
	NameField string
}

// layerURL matches a layer's REST URL or path.
var layerURL = regexp.MustCompile(`^(?:https?://[^/]+)?/services/api/v1(?:\.x)?/layers/([0-9]{1,9})/?$`)

// parseLayer reads a layer id or URL.
func parseLayer(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if m := layerURL.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	id, err := strconv.Atoi(s)
	return id, err == nil && id > 0
}

// Create makes a crop layer of a published polygon layer: site
// administrators only. Bad input is a 400 naming the field and saying
// what is wrong; nothing is written then.
func (s *Service) Create(ctx context.Context, in CreateInput) (*CropLayer, error) {
	if _, err := access.RequireSiteAdmin(ctx, ScopeWrite); err != nil {
		return nil, err
	}
	fe := apperr.FieldErrors{}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		fe.Add("name", "This field is required.")
	case utf8.RuneCountInString(name) > 500:
		fe.Add("name", "Ensure this field has no more than 500 characters.")
	}
	field := strings.TrimSpace(in.NameField)
	if field == "" {
		fe.Add("name_field", "This field is required.")
	}
	var v *ent.LayerVersion
	if strings.TrimSpace(in.Layer) == "" {
		fe.Add("layer", "This field is required.")
	} else if id, ok := parseLayer(in.Layer); !ok {
		fe.Add("layer", "Give a layer id or a layer URL (…/layers/{id}/).")
	} else {
		var problem string
		var err error
		v, problem, err = s.polygonVersion(ctx, id)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			fe.Add("layer", problem)
		}
	}
	if v != nil && field != "" && !hasField(v, field) {
		fe.Add("name_field", fmt.Sprintf("The layer has no field %q; its fields are: %s.", field, fieldNames(v)))
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	c, err := s.st.Client.CropLayer.Create().SetName(name).SetLayerID(v.LayerID).SetNameField(field).Save(ctx)
	if err != nil {
		return nil, err
	}
	return s.describe(ctx, c, v.ID)
}

// polygonVersion returns a layer's published version when the layer can
// be a crop layer, else why not.
func (s *Service) polygonVersion(ctx context.Context, id int) (*ent.LayerVersion, string, error) {
	l, err := s.st.Client.Layer.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, fmt.Sprintf("There is no layer %d.", id), nil
	}
	if err != nil {
		return nil, "", err
	}
	if l.Type == layer.TypeTable {
		return nil, fmt.Sprintf("Layer %d is a table: a crop layer needs polygon geometry.", id), nil
	}
	if l.Kind != layer.KindVector {
		return nil, fmt.Sprintf("Layer %d is a %s layer: a crop layer needs a vector layer of polygons.", id, l.Kind), nil
	}
	if l.PublishedVersionID == nil {
		return nil, fmt.Sprintf("Layer %d has no published version: publish it first.", id), nil
	}
	v, err := s.st.Client.LayerVersion.Get(ctx, *l.PublishedVersionID)
	if err != nil {
		return nil, "", err
	}
	if g := v.GeometryType; g != "polygon" && g != "multipolygon" {
		return nil, fmt.Sprintf("Layer %d holds %s geometry: a crop layer needs polygons.", id, orNone(g)), nil
	}
	return v, "", nil
}

func orNone(g string) string {
	if g == "" {
		return "no"
	}
	return g
}

func hasField(v *ent.LayerVersion, name string) bool {
	return slices.ContainsFunc(v.Fields, func(f schematype.Field) bool { return f.Name == name && f.Type != "geometry" })
}

func fieldNames(v *ent.LayerVersion) string {
	var names []string
	for _, f := range v.Fields {
		if f.Type != "geometry" {
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Delete removes a crop layer: site administrators only; a 404 when
// there is none.
func (s *Service) Delete(ctx context.Context, id int) error {
	if _, err := access.RequireSiteAdmin(ctx, ScopeWrite); err != nil {
		return err
	}
	err := s.st.Client.CropLayer.DeleteOneID(id).Exec(ctx)
	if ent.IsNotFound(err) {
		return apperr.ErrNotFound
	}
	return err
}
