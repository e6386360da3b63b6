package graph

import (
	"encoding/json"
	"fmt"

	"github.com/geopub/geopub/ent/schema/schematype"
	"github.com/geopub/geopub/internal/exportfile"
	"github.com/geopub/geopub/internal/exports"
)

// exportRequest turns a GraphQL export input into the request the rules
// take. A format value that is not a string is kept as text, for the
// validation to name.
func exportRequest(in ExportInput) (exports.Request, error) {
	req := exports.Request{Formats: map[string]string{}, Options: in.Options}
	if in.Name != nil {
		req.Name = *in.Name
	}
	if in.Crs != nil {
		req.CRS = *in.Crs
	}
	for k, v := range in.Formats {
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		req.Formats[k] = s
	}
	for _, it := range in.Items {
		if it == nil {
			continue
		}
		req.Items = append(req.Items, schematype.ExportItem{Item: it.Item, Options: it.Options})
	}
	switch {
	case in.CropFeature != nil && *in.CropFeature != "":
		raw, err := json.Marshal(*in.CropFeature)
		if err != nil {
			return req, err
		}
		req.Extent = raw
	case in.Extent != nil:
		raw, err := json.Marshal(in.Extent)
		if err != nil {
			return req, err
		}
		req.Extent = raw
	}
	return req, nil
}

// exportValidation renders a validation for GraphQL (and REST): the
// reasons' codes and, apart, their prose.
func exportValidation(v *exports.Validation) *ExportValidation {
	out := &ExportValidation{IsValid: v.Valid, InvalidReasons: exports.Codes(v.Reasons), InvalidReasonsDetail: exports.Details(v.Reasons),
		SizeEstimateZipped: int(v.SizeEstimateZipped), Items: make([]*ExportItemValidation, 0, len(v.Items))}
	for _, it := range v.Items {
		iv := &ExportItemValidation{Item: it.Item, License: it.License, Price: "0.00", IsValid: it.Valid,
			InvalidReasons: exports.Codes(it.Reasons), InvalidReasonsDetail: exports.Details(it.Reasons), FeatureCount: int(it.FeatureCount)}
		if it.Kind != "" {
			k := string(it.Kind)
			iv.Kind = &k
		}
		out.Items = append(out.Items, iv)
	}
	return out
}

// exportFormatKinds lists the formats per data kind.
func exportFormatKinds() []*ExportFormatKind {
	out := make([]*ExportFormatKind, 0, len(exportfile.Kinds))
	for _, k := range exportfile.Kinds {
		fk := &ExportFormatKind{Kind: string(k), Choices: []*ExportFormatChoice{}}
		for _, f := range exportfile.Formats(k) {
			fk.Choices = append(fk.Choices, &ExportFormatChoice{Value: f.MIME, DisplayName: f.Display})
		}
		out = append(out, fk)
	}
	return out
}

// ExportDownloadPath is the path of an export's file under the REST API.
func ExportDownloadPath(id int) string {
	return fmt.Sprintf("/services/api/v1.x/exports/%d/download/", id)
}
