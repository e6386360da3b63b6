// Package lifecycle holds the rules the four versioned dataset kinds
// (layers and tables, sets, documents, catalog items) share about the
// states of their versions. A version is a draft until it is published;
// publishing the next one supersedes it; a draft may be deleted. Only a
// draft may be edited, imported, published or deleted, and a dataset's
// released versions are the published and superseded ones.
//
// Each kind's Ent schema has its own State enum with these four values;
// the functions take any of them (a test holds the values together).
package lifecycle

import "github.com/geopub/geopub/internal/apperr"

// The states every kind's versions share.
const (
	Draft      = "draft"
	Published  = "published"
	Superseded = "superseded"
	Deleted    = "deleted"
)

// Released reports whether a version in state s has been published (it
// is published now, or was and has been superseded).
func Released[S ~string](s S) bool {
	return string(s) == Published || string(s) == Superseded
}

// MayEdit refuses (NOT_ALLOWED) to edit a version that is not a draft.
func MayEdit[S ~string](versionID int, s S) error {
	return onlyDraft(apperr.NotAllowed, versionID, s, "edited")
}

// MayImport refuses (CONFLICT) to import into a version that is not a
// draft.
func MayImport[S ~string](versionID int, s S) error {
	return onlyDraft(apperr.Conflict, versionID, s, "imported")
}

// MayPublish refuses (CONFLICT) to publish a version that is not a draft.
func MayPublish[S ~string](versionID int, s S) error {
	return onlyDraft(apperr.Conflict, versionID, s, "published")
}

// MayDelete refuses to delete a version that is not a draft: CONFLICT
// when it is deleted already, NOT_ALLOWED when it has been released.
func MayDelete[S ~string](versionID int, s S) error {
	if string(s) == Deleted {
		return DeletedMeanwhile(versionID)
	}
	return onlyDraft(apperr.NotAllowed, versionID, s, "deleted")
}

// DeletedMeanwhile is the CONFLICT of deleting a draft that another
// request deleted (or published) between the check and the write.
func DeletedMeanwhile(versionID int) error {
	return apperr.New(apperr.Conflict, "Version %d is already deleted.", versionID)
}

func onlyDraft[S ~string](code apperr.Code, versionID int, s S, verb string) error {
	if string(s) == Draft {
		return nil
	}
	return apperr.New(code, "Version %d is %s: only a draft can be %s.", versionID, s, verb)
}
