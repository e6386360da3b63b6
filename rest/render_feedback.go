package rest

import (
	"net/http"
	"time"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/graph"
)

// personJSON is a user as feedback shows them.
type personJSON struct {
	ID        int     `json:"id"`
	FirstName string  `json:"first_name"`
	LastName  string  `json:"last_name"`
	AvatarURL *string `json:"avatar_url"`
}

// ticketedJSON is the object a feedback item is about.
type ticketedJSON struct {
	Type    string `json:"type"`
	HTMLURL string `json:"html_url"`
	// ID is a number, or a catalog item's public id (c12).
	ID any `json:"id"`
}

// feedbackJSON is a feedback item; Attachments and Updates are set in
// detail and creation responses only, so a list costs no query per item.
type feedbackJSON struct {
	ID              int                   `json:"id"`
	URL             string                `json:"url"`
	CreatedAt       time.Time             `json:"created_at"`
	CreatedBy       *personJSON           `json:"created_by"`
	Title           string                `json:"title"`
	Description     string                `json:"description"`
	DescriptionHTML string                `json:"description_html"`
	Status          string                `json:"status"`
	SubStatus       string                `json:"sub_status"`
	HTMLURL         string                `json:"html_url"`
	UpdatedAt       time.Time             `json:"updated_at"`
	Assignee        *personJSON           `json:"assignee"`
	Mapstream       any                   `json:"mapstream"`
	TicketedObject  *ticketedJSON         `json:"ticketed_object"`
	Tags            string                `json:"tags"`
	Attachments     *[]attachmentJSON     `json:"attachments,omitempty"`
	PermalinkURL    string                `json:"permalink_url"`
	Updates         *[]feedbackRecordJSON `json:"updates,omitempty"`
}

// feedbackRecordJSON is an update record.
type feedbackRecordJSON struct {
	ID              int              `json:"id"`
	CreatedAt       time.Time        `json:"created_at"`
	CreatedBy       *personJSON      `json:"created_by"`
	Description     string           `json:"description"`
	DescriptionHTML string           `json:"description_html"`
	Changes         map[string]any   `json:"changes"`
	Attachments     []attachmentJSON `json:"attachments"`
	PermalinkURL    *string          `json:"permalink_url"`
	IsInternal      bool             `json:"is_internal"`
}

// attachmentJSON is an attached document's summary.
type attachmentJSON struct {
	ID                int    `json:"id"`
	Title             string `json:"title"`
	License           any    `json:"license"`
	HTMLURL           string `json:"html_url"`
	DownloadURL       string `json:"download_url"`
	Extension         string `json:"extension"`
	FileSize          int64  `json:"file_size"`
	FileSizeFormatted string `json:"file_size_formatted"`
}

// feedbackRenderer renders feedback for one request, loading the people
// it names in one query per response.
type feedbackRenderer struct {
	a      *API
	r      *http.Request
	l      links
	people map[int]*graph.FeedbackPerson
}

func (a *API) feedbackRenderer(r *http.Request, items []*ent.Feedback, records []*ent.FeedbackRecord) (*feedbackRenderer, error) {
	var ids []int
	for _, f := range items {
		ids = append(ids, f.CreatedBy)
		if f.AssigneeID != nil {
			ids = append(ids, *f.AssigneeID)
		}
	}
	for _, u := range records {
		ids = append(ids, u.CreatedBy)
	}
	people, err := a.res.FeedbackPeople(r.Context(), ids...)
	if err != nil {
		return nil, err
	}
	return &feedbackRenderer{a: a, r: r, l: a.links(r), people: people}, nil
}

func (fr *feedbackRenderer) person(id *int) *personJSON {
	if id == nil || fr.people[*id] == nil {
		return nil
	}
	p := fr.people[*id]
	return &personJSON{ID: p.ID, FirstName: p.FirstName, LastName: p.LastName, AvatarURL: p.AvatarURL}
}

func (fr *feedbackRenderer) attachments(ds []*ent.Document) ([]attachmentJSON, error) {
	out := make([]attachmentJSON, 0, len(ds))
	for _, d := range ds {
		js, err := fr.a.renderDocument(fr.r, d, nil, false)
		if err != nil {
			return nil, err
		}
		out = append(out, attachmentJSON{ID: d.ID, Title: js.Name, License: js.License, HTMLURL: js.URLHTML,
			DownloadURL: js.URLDownload, Extension: js.Extension, FileSize: js.FileSize, FileSizeFormatted: js.FileSizeFormatted})
	}
	return out, nil
}

// item renders f; with updates set (detail and creation) it includes its
// attachments and the update records the caller may see.
func (fr *feedbackRenderer) item(f *ent.Feedback, updates bool) (feedbackJSON, error) {
	ctx := fr.r.Context()
	var err error
	out := feedbackJSON{
		ID: f.ID, URL: fr.l.api("comments/%d/", f.ID), CreatedAt: f.CreatedAt, CreatedBy: fr.person(&f.CreatedBy),
		Title: f.Title, Description: f.Description,
		Status: f.Status, SubStatus: f.SubStatus, HTMLURL: fr.l.html("comments/%d/", f.ID), UpdatedAt: f.UpdatedAt,
		Assignee: fr.person(f.AssigneeID), Tags: f.Tags, PermalinkURL: f.PermalinkURL,
	}
	if out.DescriptionHTML, err = fr.a.res.Feedback().DescriptionHTML(ctx, f); err != nil {
		return feedbackJSON{}, err
	}
	if t, err := fr.a.res.Feedback().TicketedObject(ctx, f); err != nil {
		return feedbackJSON{}, err
	} else if t != nil {
		id := ticketedID(t.Type, t.ID)
		out.TicketedObject = &ticketedJSON{Type: t.Type, ID: id, HTMLURL: fr.l.html("%s/%v/", ticketedPaths[t.Type], id)}
	}
	if !updates {
		return out, nil
	}
	docs, err := fr.a.res.Feedback().Attachments(ctx, f)
	if err != nil {
		return feedbackJSON{}, err
	}
	att, err := fr.attachments(docs)
	if err != nil {
		return feedbackJSON{}, err
	}
	out.Attachments = &att
	recs, err := fr.a.res.Feedback().Updates(ctx, f)
	if err != nil {
		return feedbackJSON{}, err
	}
	if err := fr.addPeople(recs); err != nil {
		return feedbackJSON{}, err
	}
	list := make([]feedbackRecordJSON, 0, len(recs))
	for _, u := range recs {
		js, err := fr.record(u)
		if err != nil {
			return feedbackJSON{}, err
		}
		list = append(list, js)
	}
	out.Updates = &list
	return out, nil
}

// addPeople loads the authors of records not loaded yet.
func (fr *feedbackRenderer) addPeople(recs []*ent.FeedbackRecord) error {
	var ids []int
	for _, u := range recs {
		if fr.people[u.CreatedBy] == nil {
			ids = append(ids, u.CreatedBy)
		}
	}
	more, err := fr.a.res.FeedbackPeople(fr.r.Context(), ids...)
	for k, v := range more {
		fr.people[k] = v
	}
	return err
}

func (fr *feedbackRenderer) record(u *ent.FeedbackRecord) (feedbackRecordJSON, error) {
	docs, err := fr.a.res.FeedbackRecord().Attachments(fr.r.Context(), u)
	if err != nil {
		return feedbackRecordJSON{}, err
	}
	att, err := fr.attachments(docs)
	if err != nil {
		return feedbackRecordJSON{}, err
	}
	html, err := fr.a.res.FeedbackRecord().DescriptionHTML(fr.r.Context(), u)
	if err != nil {
		return feedbackRecordJSON{}, err
	}
	changes := u.Changes
	if changes == nil {
		changes = map[string]any{}
	}
	return feedbackRecordJSON{
		ID: u.ID, CreatedAt: u.CreatedAt, CreatedBy: fr.person(&u.CreatedBy), Description: u.Description,
		DescriptionHTML: html, Changes: changes, Attachments: att,
		PermalinkURL: u.PermalinkURL, IsInternal: u.IsInternal,
	}, nil
}
