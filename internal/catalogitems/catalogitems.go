// Package catalogitems holds what creating a catalog item and editing its
// drafts takes: the checks of an item's title, link and labels, and the
// writes of a new item, a new draft and a draft's edit.
//
// The front doors authorize the caller on the item and check the owning
// group before calling in.
package catalogitems

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
	"github.com/geopub/geopub/internal/catalogterms"
	"github.com/geopub/geopub/internal/metadata"
	"github.com/geopub/geopub/internal/store"
	"github.com/geopub/geopub/internal/textrules"
)

// Service writes catalog items and their drafts.
type Service struct {
	Store *store.Store
}

// checkLinkURL checks the link of an item: an absolute http or https URL
// with a host and no credentials, at most 2,000 characters.
func checkLinkURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", apperr.Field("link_url", "This field is required.")
	}
	if len(s) > 2000 {
		return "", apperr.Field("link_url", "Ensure this field has no more than 2000 characters.")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", apperr.Field("link_url", fmt.Sprintf("Enter an absolute http or https URL without credentials, not %q.", s))
	}
	return s, nil
}

// checkTitle checks a title: not blank, at most 500 characters.
func checkTitle(s string) (string, error) {
	s, err := textrules.Required("title", s, "This field may not be blank.")
	if err != nil {
		return "", err
	}
	if len(s) > 500 {
		return "", apperr.Field("title", "Ensure this field has no more than 500 characters.")
	}
	return s, nil
}

// A New is a catalog item to create with its first draft, checked
// (CheckNew).
type New struct {
	title, description, link string
	tags, categories         []string
}

// CheckNew checks a new item's title, link, tags and categories, in that
// order; the first problem is the answer.
func CheckNew(title, description, link string, tags, categories []string) (New, error) {
	n := New{description: description}
	var err error
	if n.title, err = checkTitle(title); err != nil {
		return New{}, err
	}
	if n.link, err = checkLinkURL(link); err != nil {
		return New{}, err
	}
	if n.tags, err = catalogterms.CleanLabels("tags", tags); err != nil {
		return New{}, err
	}
	if n.categories, err = catalogterms.CleanLabels("categories", categories); err != nil {
		return New{}, err
	}
	return n, nil
}

// Create writes an item of creatorID's owned by groupID (nil: its creator
// alone), its creator's grants and its first draft, in one transaction.
// It returns the draft's id.
func (s *Service) Create(ctx context.Context, creatorID int, groupID *int, n New) (int, error) {
	return store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (int, error) {
		it, err := c.CatalogItem.Create().SetTitle(n.title).SetUserID(creatorID).SetNillableGroupID(groupID).Save(ctx)
		if err != nil {
			return 0, err
		}
		if err := access.GrantDefaults(ctx, c, access.KindCatalogItem, it.ID, creatorID); err != nil {
			return 0, err
		}
		v, err := c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle(n.title).SetDescription(n.description).
			SetLinkURL(n.link).SetTags(n.tags).SetCategories(n.categories).SetCreatedBy(creatorID).Save(ctx)
		if err != nil {
			return 0, err
		}
		return v.ID, nil
	})
}

// NewDraft writes a draft of item it by userID that starts as version from
// is, metadata document included. It returns the draft's id.
func (s *Service) NewDraft(ctx context.Context, it *ent.CatalogItem, from *ent.CatalogItemVersion, userID int) (int, error) {
	return store.InTxFor(ctx, s.Store, func(ctx context.Context, c *ent.Client, _ *sql.Tx) (int, error) {
		v, err := c.CatalogItemVersion.Create().SetItemID(it.ID).SetTitle(from.Title).SetDescription(from.Description).
			SetLinkURL(from.LinkURL).SetTags(from.Tags).SetCategories(from.Categories).
			SetCreatedBy(userID).Save(ctx)
		if err != nil {
			return 0, err
		}
		return v.ID, metadata.CopyDocument(ctx, c, metadata.KindItem, from.ID, v.ID)
	})
}

// A Change is a checked edit of a draft (CheckChange); what it does not
// set stays as it is.
type Change struct {
	title, description, link *string
	tags, categories         []string
	setTags, setCategories   bool
}

// CheckChange checks an edit of a draft: title, link, tags and categories
// by the rules of CheckNew, in that order; nil fields stay as they are.
func CheckChange(title, description, link *string, tags, categories []string) (Change, error) {
	ch := Change{description: description, setTags: tags != nil, setCategories: categories != nil}
	if title != nil {
		t, err := checkTitle(*title)
		if err != nil {
			return Change{}, err
		}
		ch.title = &t
	}
	if link != nil {
		l, err := checkLinkURL(*link)
		if err != nil {
			return Change{}, err
		}
		ch.link = &l
	}
	var err error
	if ch.setTags {
		if ch.tags, err = catalogterms.CleanLabels("tags", tags); err != nil {
			return Change{}, err
		}
	}
	if ch.setCategories {
		if ch.categories, err = catalogterms.CleanLabels("categories", categories); err != nil {
			return Change{}, err
		}
	}
	return ch, nil
}

// UpdateDraft applies ch to draft v.
func (s *Service) UpdateDraft(ctx context.Context, v *ent.CatalogItemVersion, ch Change) error {
	return s.Store.InTx(ctx, func(ctx context.Context, c *ent.Client, _ *sql.Tx) error {
		upd := c.CatalogItemVersion.UpdateOneID(v.ID).
			SetNillableTitle(ch.title).SetNillableDescription(ch.description).SetNillableLinkURL(ch.link)
		if ch.setTags {
			upd.SetTags(ch.tags)
		}
		if ch.setCategories {
			upd.SetCategories(ch.categories)
		}
		return upd.Exec(ctx)
	})
}
