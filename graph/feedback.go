package graph

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/document"
	"github.com/geopub/geopub/ent/feedback"
	"github.com/geopub/geopub/ent/feedbackrecord"
	"github.com/geopub/geopub/ent/predicate"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/auth"
)

// feedbackVisible narrows feedback items to those p may see: comments on
// objects p may see; every item p wrote, is assigned or administers (items
// about objects p may edit); everything for site administrators. Items
// about no object are seen by their author, assignee and site
// administrators.
func (r *Resolver) feedbackVisible(ctx context.Context, p auth.Principal) (predicate.Feedback, error) {
	if p.IsSiteAdmin() {
		return feedback.IDGT(0), nil
	}
	var comments, administered []predicate.Feedback
	for _, typ := range ticketedKinds {
		k, err := r.feedbackKindOf(ctx, typ, p)
		if err != nil {
			return nil, err
		}
		if k == nil {
			continue
		}
		comments = append(comments, targetIn(typ, k.ids(false)))
		if p.Authenticated() {
			administered = append(administered, targetIn(typ, k.ids(true)))
		}
	}
	either := []predicate.Feedback{feedback.And(feedback.Status(""), feedback.Or(comments...))}
	if p.Authenticated() {
		either = append(either, feedback.CreatedBy(p.User.ID), feedback.AssigneeID(p.User.ID), feedback.Or(administered...))
	}
	return feedback.Or(either...), nil
}

// loadFeedback returns an item the caller may see, else NOT_FOUND. With
// write set the caller must be signed in with feedback:write; otherwise
// feedback:read is enough, even anonymously.
func (r *Resolver) loadFeedback(ctx context.Context, id int, write bool) (*ent.Feedback, error) {
	if write {
		if _, err := access.RequireUser(ctx, auth.ScopeFeedbackWrite); err != nil {
			return nil, err
		}
	} else if err := access.RequireScope(ctx, auth.ScopeFeedbackRead); err != nil {
		return nil, err
	}
	vis, err := r.feedbackVisible(ctx, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	f, err := r.Client.Feedback.Query().Where(feedback.ID(id), vis).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Feedback %d not found.", id)
	}
	return f, err
}

// administers reports whether p administers item f: site administrators
// do, and so do those who may edit its ticketed object. They see internal
// updates, set sub_status, assignee and is_internal, and may delete it.
func (r *Resolver) administers(ctx context.Context, f *ent.Feedback, p auth.Principal) (bool, error) {
	if p.IsSiteAdmin() {
		return true, nil
	}
	if !p.Authenticated() || f.TargetType == "" || f.TargetID == nil {
		return false, nil
	}
	k, err := r.feedbackKindOf(ctx, f.TargetType, p)
	if err != nil || k == nil {
		return false, err
	}
	return r.selectsID(ctx, k.ids(true), *f.TargetID)
}

// feedbackRecords returns the updates of f the caller may see, oldest
// first: internal ones only for the item's administrators.
func (r *Resolver) feedbackRecords(ctx context.Context, f *ent.Feedback) ([]*ent.FeedbackRecord, error) {
	admin, err := r.administers(ctx, f, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	q := r.Client.FeedbackRecord.Query().Where(feedbackrecord.FeedbackID(f.ID))
	if !admin {
		q.Where(feedbackrecord.IsInternal(false))
	}
	return q.Order(feedbackrecord.ByID()).All(ctx)
}

// FeedbackPeople returns the public faces of the given users by id.
func (r *Resolver) FeedbackPeople(ctx context.Context, ids ...int) (map[int]*FeedbackPerson, error) {
	out := map[int]*FeedbackPerson{}
	if len(ids) == 0 {
		return out, nil
	}
	us, err := r.Client.User.Query().Where(user.IDIn(uniqueInts(ids)...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range us {
		out[u.ID] = &FeedbackPerson{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName}
	}
	return out, nil
}

func (r *Resolver) feedbackPerson(ctx context.Context, id *int) (*FeedbackPerson, error) {
	if id == nil {
		return nil, nil
	}
	m, err := r.FeedbackPeople(ctx, *id)
	return m[*id], err
}

// visibleDocuments returns, in the order given, the documents of ids the
// caller may see (published, or editable by them); others are left out.
func (r *Resolver) visibleDocuments(ctx context.Context, ids []int) ([]*ent.Document, error) {
	if len(ids) == 0 {
		return []*ent.Document{}, nil
	}
	vis, err := documentVisible(ctx, r.Client, auth.FromContext(ctx))
	if err != nil {
		return nil, err
	}
	ds, err := r.Client.Document.Query().Where(document.IDIn(ids...), vis).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[int]*ent.Document{}
	for _, d := range ds {
		byID[d.ID] = d
	}
	out := make([]*ent.Document, 0, len(ds))
	for _, id := range uniqueInts(ids) {
		if d := byID[id]; d != nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// checkAttachments checks that every attachment is a document the caller
// may see.
func (r *Resolver) checkAttachments(ctx context.Context, ids []int) ([]int, error) {
	ids = uniqueInts(ids)
	if err := checkListInput("attachments", len(ids)); err != nil {
		return nil, err
	}
	ds, err := r.visibleDocuments(ctx, ids)
	if err != nil {
		return nil, err
	}
	if len(ds) != len(ids) {
		found := map[int]bool{}
		for _, d := range ds {
			found[d.ID] = true
		}
		for _, id := range ids {
			if !found[id] {
				return nil, apperr.Field("attachments", fmt.Sprintf("There is no document %d that you can see.", id))
			}
		}
	}
	return ids, nil
}

// checkPermalink accepts a blank permalink or an absolute http(s) URL:
// clients show it as a link, so no other scheme may get in.
func checkPermalink(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(s) > 2000 {
		return "", apperr.Field("permalink_url", "Give an absolute http or https URL of at most 2000 characters.")
	}
	return s, nil
}
