package rest

import (
	"encoding/json"
	"github.com/geopub/geopub/internal/apperr"
	"regexp"
	"strconv"
	"strings"
)

// The URL shapes a reference to another resource may take.
var (
	userURL  = regexp.MustCompile(`/users/([0-9]+)/?$`)
	groupURL = regexp.MustCompile(`/groups/([0-9]+)/?$`)
)

// ownerGroup reads the optional owning group of a new dataset: absent or
// null is none, else a reference as idRef reads it, and an unusable one is
// a 400 on "group".
func ownerGroup(raw json.RawMessage) (*int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	gid, problem := idRef(raw, groupURL)
	if problem != "" {
		return nil, apperr.Field("group", problem)
	}
	return &gid, nil
}

// idRef reads a reference to another resource: an integer id, a numeric
// string, the resource's URL (matched by urlPattern) or an object with an
// id. It returns a message for the caller when the reference is unusable.
func idRef(raw json.RawMessage, urlPattern *regexp.Regexp) (int, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, "This field is required."
	}
	var n int
	if json.Unmarshal(raw, &n) == nil && n > 0 {
		return n, ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n, ""
		}
		if m := urlPattern.FindStringSubmatch(s); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n, ""
			}
		}
	}
	var obj struct {
		ID int `json:"id"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.ID > 0 {
		return obj.ID, ""
	}
	return 0, "Give an id or a URL."
}
