package catalogterms

import (
	"context"
	"fmt"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/apperr"
)

// Limits of the catalogue fields of a dataset version.
const (
	MaxTags       = 50
	MaxCategories = 20
	// MaxLabel is the longest tag or category key, in bytes.
	MaxLabel = 100
)

// CleanLabels trims tags or categories, drops blanks and repeats, and
// refuses overlong ones; field names them in errors.
func CleanLabels(field string, in []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		if len(s) > MaxLabel {
			return nil, apperr.Field(field, fmt.Sprintf("%q is longer than %d characters.", s, MaxLabel))
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// Change is a requested change of a draft's catalogue fields. Nil Tags or
// Categories leave the field as it is; License is looked at only when
// SetLicense is true, and then nil removes the licence.
type Change struct {
	Tags, Categories []string
	SetLicense       bool
	License          *int
}

// Edit is a checked Change, ready to apply.
type Edit struct {
	tags, categories []string
	setTags, setCats bool
	license          *int
	setLicense       bool
}

// Setter is the part of a version mutation that holds the catalogue
// fields (layer, set and document versions alike).
type Setter interface {
	SetTags([]string)
	SetCategories([]string)
	SetLicenseID(int)
	ClearLicenseID()
}

// Check checks a change: tags (cleaned, at most MaxTags), categories
// (cleaned, at most MaxCategories, keys of existing categories) and the
// licence (an existing one).
func (k *Cache) Check(ctx context.Context, c *ent.Client, ch Change) (Edit, error) {
	var e Edit
	var err error
	if ch.Tags != nil {
		if e.tags, err = CleanLabels("tags", ch.Tags); err != nil {
			return e, err
		}
		if len(e.tags) > MaxTags {
			return e, apperr.Field("tags", fmt.Sprintf("Ensure this field has no more than %d tags.", MaxTags))
		}
		e.setTags = true
	}
	if ch.Categories != nil {
		if e.categories, err = CleanLabels("categories", ch.Categories); err != nil {
			return e, err
		}
		if len(e.categories) > MaxCategories {
			return e, apperr.Field("categories", fmt.Sprintf("Ensure this field has no more than %d categories.", MaxCategories))
		}
		for _, key := range e.categories {
			cat, err := k.Category(ctx, c, key)
			if err != nil {
				return e, err
			}
			if cat == nil {
				return e, apperr.Field("categories", fmt.Sprintf("%q is not a category: categories are named by their keys (GET /categories/).", key))
			}
		}
		e.setCats = true
	}
	if ch.SetLicense {
		e.setLicense = true
		if ch.License != nil {
			if _, err := k.License(ctx, c, *ch.License); err != nil {
				if apperr.CodeOf(err) == apperr.NotFound {
					return e, apperr.Field("license", fmt.Sprintf("Licence %d does not exist (GET /licenses/).", *ch.License))
				}
				return e, err
			}
			e.license = ch.License
		}
	}
	return e, nil
}

// Apply sets the checked fields on a version mutation.
func (e Edit) Apply(m Setter) {
	if e.setTags {
		m.SetTags(e.tags)
	}
	if e.setCats {
		m.SetCategories(e.categories)
	}
	if e.setLicense {
		if e.license != nil {
			m.SetLicenseID(*e.license)
		} else {
			m.ClearLicenseID()
		}
	}
}

// VersionLicense is the licence a version names, nil when it names none
// or one that is gone.
func (k *Cache) VersionLicense(ctx context.Context, c *ent.Client, id *int) (*ent.License, error) {
	if id == nil {
		return nil, nil
	}
	l, err := k.License(ctx, c, *id)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	return l, err
}
