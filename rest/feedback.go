package rest

import (
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
)

func (a *API) feedbackRoutes(r chi.Router) {
	r.Use(scoped("feedback:read", "feedback:write"))
	r.Get("/comments", a.handle(a.listFeedback))
	r.Post("/comments", a.handle(a.createFeedback))
	r.Get("/comments/{fid:[0-9]+}", a.handle(a.getFeedback))
	r.Put("/comments/{fid:[0-9]+}", a.handle(a.updateFeedback))
	r.Delete("/comments/{fid:[0-9]+}", a.handle(a.deleteFeedback))
}

func (a *API) listFeedback(w http.ResponseWriter, r *http.Request) error {
	q := queryOf(r)
	in := graph.FeedbackSearchInput{TicketedObjectType: q.strPtr("ticketed_object.type"), Statuses: q.all("status")}
	var err error
	if in.Page, err = q.intPtr("page"); err != nil {
		return err
	}
	if in.PageSize, err = q.intPtr("page_size"); err != nil {
		return err
	}
	if in.TicketedObjectID, err = q.intPtr("ticketed_object.id"); err != nil {
		return err
	}
	types, err := q.oneOf("type", "comment", "ticket")
	if err != nil {
		return err
	}
	if len(types) == 1 {
		t := graph.FeedbackTypeComment
		if types[0] == "ticket" {
			t = graph.FeedbackTypeTicket
		}
		in.Type = &t
	}
	p, err := a.res.Query().FeedbackSearch(r.Context(), &in)
	if err != nil {
		return err
	}
	fr, err := a.feedbackRenderer(r, p.Items, nil)
	if err != nil {
		return err
	}
	out := make([]feedbackJSON, 0, len(p.Items))
	for _, f := range p.Items {
		js, err := fr.item(f, false)
		if err != nil {
			return err
		}
		out = append(out, js)
	}
	a.writePage(w, r, pageResult{page: p.PageInfo.Page, size: p.PageInfo.PageSize, total: p.PageInfo.Total, count: len(out)}, nil, out)
	return nil
}

// feedbackBody is POST and PUT /comments/.
type feedbackBody struct {
	Description    *string         `json:"description"`
	Title          *string         `json:"title"`
	Status         *string         `json:"status"`
	SubStatus      *string         `json:"sub_status"`
	Tags           *string         `json:"tags"`
	IsInternal     *bool           `json:"is_internal"`
	Assignee       json.RawMessage `json:"assignee"`
	Attachments    []int           `json:"attachments"`
	PermalinkURL   *string         `json:"permalink_url"`
	TicketedObject *struct {
		Type string `json:"type"`
		ID   int    `json:"id"`
	} `json:"ticketed_object"`
}

func (a *API) createFeedback(w http.ResponseWriter, r *http.Request) error {
	var body feedbackBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in := graph.CreateFeedbackInput{Description: ptrString(body.Description), Title: body.Title, Status: body.Status,
		Tags: body.Tags, Attachments: body.Attachments, PermalinkURL: body.PermalinkURL}
	if t := body.TicketedObject; t != nil {
		in.TicketedObject = &graph.TicketedObjectInput{Type: t.Type, ID: t.ID}
	}
	f, err := a.res.Mutation().CreateFeedback(r.Context(), in)
	if err != nil {
		return err
	}
	return a.writeFeedback(w, r, f, http.StatusCreated)
}

func (a *API) writeFeedback(w http.ResponseWriter, r *http.Request, f *ent.Feedback, status int) error {
	fr, err := a.feedbackRenderer(r, []*ent.Feedback{f}, nil)
	if err != nil {
		return err
	}
	js, err := fr.item(f, true)
	if err != nil {
		return err
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", js.URL)
	}
	writeJSON(w, status, js)
	return nil
}

func (a *API) getFeedback(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "fid")
	if err != nil {
		return err
	}
	f, err := a.res.Query().Feedback(r.Context(), id)
	if err != nil {
		return err
	}
	return a.writeFeedback(w, r, f, http.StatusOK)
}

func (a *API) updateFeedback(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "fid")
	if err != nil {
		return err
	}
	var body feedbackBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in := graph.UpdateFeedbackInput{Description: body.Description, IsInternal: body.IsInternal, Status: body.Status,
		SubStatus: body.SubStatus, Title: body.Title, Tags: body.Tags, Attachments: body.Attachments, PermalinkURL: body.PermalinkURL}
	switch {
	case len(body.Assignee) == 0:
	case string(body.Assignee) == "null":
		unassign := true
		in.Unassign = &unassign
	default:
		uid, problem := idRef(body.Assignee, userURL)
		if problem != "" {
			return apperr.Field("assignee", problem)
		}
		in.AssigneeID = &uid
	}
	u, err := a.res.Mutation().UpdateFeedback(r.Context(), id, in)
	if err != nil {
		return err
	}
	fr, err := a.feedbackRenderer(r, nil, []*ent.FeedbackRecord{u})
	if err != nil {
		return err
	}
	js, err := fr.record(u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, js)
	return nil
}

func (a *API) deleteFeedback(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "fid")
	if err != nil {
		return err
	}
	if _, err := a.res.Mutation().DeleteFeedback(r.Context(), id); err != nil {
		return err
	}
	noContent(w)
	return nil
}
