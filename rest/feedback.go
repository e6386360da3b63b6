package rest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

func (a *API) feedbackRoutes(r chi.Router) {
	r.Use(scoped(auth.ScopeFeedbackRead, auth.ScopeFeedbackWrite))
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
	if in.Page, in.PageSize, err = q.paging(); err != nil {
		return err
	}
	if ref := q.strPtr("ticketed_object.id"); ref != nil && strings.TrimSpace(*ref) != "" {
		id, err := parseTicketedID(ptrString(in.TicketedObjectType), *ref, "ticketed_object.id")
		if err != nil {
			return err
		}
		in.TicketedObjectID = &id
	}
	if in.Type, err = feedbackTypeOf(q); err != nil {
		return err
	}
	p, err := a.res.Query().FeedbackSearch(r.Context(), &in)
	if err != nil {
		return err
	}
	return a.writeFeedbackPage(w, r, p)
}

// feedbackTypeOf reads the type filter of a feedback list: comment,
// ticket, or both when absent or repeated.
func feedbackTypeOf(q query) (*graph.FeedbackType, error) {
	types, err := q.oneOf("type", "comment", "ticket")
	if err != nil || len(types) != 1 {
		return nil, err
	}
	t := graph.FeedbackTypeComment
	if types[0] == "ticket" {
		t = graph.FeedbackTypeTicket
	}
	return &t, nil
}

// writeFeedbackPage answers with a page of feedback items in their list
// form.
func (a *API) writeFeedbackPage(w http.ResponseWriter, r *http.Request, p *graph.FeedbackPage) error {
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
		Type string          `json:"type"`
		ID   json.RawMessage `json:"id"`
	} `json:"ticketed_object"`
}

// createInput reads the body of a new item.
func (b feedbackBody) createInput() (graph.CreateFeedbackInput, error) {
	in := graph.CreateFeedbackInput{Description: ptrString(b.Description), Title: b.Title, Status: b.Status,
		Tags: b.Tags, Attachments: b.Attachments, PermalinkURL: b.PermalinkURL}
	var err error
	in.TicketedObject, err = b.ticketedInput()
	return in, err
}

// ticketedInput reads the ticketed object of a new item, if any.
func (b feedbackBody) ticketedInput() (*graph.TicketedObjectInput, error) {
	t := b.TicketedObject
	if t == nil {
		return nil, nil
	}
	in := &graph.TicketedObjectInput{Type: t.Type}
	ref, ok, err := jsonRef(t.ID, "ticketed_object.id")
	if err != nil || !ok {
		return in, err // no id: the resolver asks for one
	}
	in.ID, err = parseTicketedID(strings.TrimSpace(t.Type), ref, "ticketed_object.id")
	return in, err
}

func (a *API) createFeedback(w http.ResponseWriter, r *http.Request) error {
	var body feedbackBody
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := body.createInput()
	if err != nil {
		return err
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
