package rest

import "testing"

func TestViewName(t *testing.T) {
	for key, want := range map[string]string{
		"/layers":                                 "Layer List",
		"/layers/{lid:[0-9]+}/versions":           "Layer Version List",
		"/layers/{lid}/versions/{vid}":            "Layer Version",
		"/groups/{gid}/permissions/user.{uid}":    "Group Permission",
		"/groups/{gid}/access-requests":           "Group Access Request List",
		"/sets/{sid}/versions/{vid}/metadata/iso": "Set Version Metadata ISO",
		"/documents/{did}/download":               "Document Download",
		"/items/{cid}/feedback":                   "Catalog Item Feedback List",
		"/sources/{sid}/scans/{scid}/log":         "Source Scan Log",
		"/site/external-service-templates":        "Site External Service Template List",
	} {
		if got := viewName(viewKey(key)); got != want {
			t.Errorf("viewName(%q) = %q, want %q", key, got, want)
		}
	}
	// The table wins over the derived name, and carries the expansions.
	if v := viewOf("/groups/{gid:[0-9]+}"); v.name != "Group" || len(v.expansions) != 1 || v.expansions[0] != "permissions" {
		t.Errorf("viewOf(/groups/{gid}) = %+v", v)
	}
}
