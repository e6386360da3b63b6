package rest_test

import "net/http"

// referenceRules are writes that name another object in their body: the
// caller must be able to see it. They run after the routes' rules, on the
// objects they name (the path is the route's; the body names the object).
// Refused callers get the field error of an object that does not exist.
func referenceRules() map[string]rule {
	asField := []int{http.StatusBadRequest}
	return map[string]rule{
		"POST /sets with a member layer": {kind: "layers", targets: []target{{"/sets/", userViews}}, refused: asField,
			body: func(f *fixtures, o *object, r role) any {
				return map[string]any{"title": "Matrix set of " + o.name + " by " + r.String(),
					"items": []string{f.e.API + f.fill(nil, "/layers/{id}/", o)}}
			}},
		"POST /comments about a layer": {kind: "layers", targets: []target{{"/comments/", userViews}}, refused: asField,
			body: func(_ *fixtures, o *object, _ role) any {
				return map[string]any{"description": "Matrix remark", "ticketed_object": map[string]any{"type": "layer", "id": num(o.vars["id"])}}
			}},
		"POST /comments with a document attached": {kind: "documents", targets: []target{{"/comments/", userViews}}, refused: asField,
			body: func(_ *fixtures, o *object, _ role) any {
				return map[string]any{"description": "Matrix remark", "attachments": []int{num(o.vars["id"])}}
			}},
		// An item the editor may edit, with each document. Outsiders get
		// the item's 403: it is the item they may not edit.
		"POST /items/{cid}/attachments of a document": {kind: "documents", refused: asField, inBody: true,
			targets: []target{{"/items/{refitem}/attachments/", canEdit}},
			ok:      []int{http.StatusConflict}, // attached by an earlier call
			body:    func(_ *fixtures, o *object, _ role) any { return map[string]any{"document": num(o.vars["id"])} }},
	}
}
