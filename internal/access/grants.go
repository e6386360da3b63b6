package access

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/datasetpermission"
	"github.com/geopub/geopub/ent/group"
	"github.com/geopub/geopub/ent/user"
	"github.com/geopub/geopub/internal/apperr"
)

// Key is the grant's id in URLs and answers: user.4, group.7,
// group.everyone, group.administrators.
func (s Subject) Key() string {
	switch s.Kind {
	case datasetpermission.SubjectEveryone, datasetpermission.SubjectAdministrators:
		return "group." + string(s.Kind)
	}
	return fmt.Sprintf("%s.%d", s.Kind, s.ID)
}

// SubjectOf returns who a stored grant is for.
func SubjectOf(p *ent.DatasetPermission) Subject {
	return Subject{Kind: p.Subject, ID: p.SubjectID}
}

// ParseGrantKey reads a grant id: user.{id}, group.{id}, group.everyone,
// group.administrators, or a bare group id or name as existing clients
// send.
func ParseGrantKey(key string) (Subject, error) {
	kind, ref, ok := strings.Cut(key, ".")
	if !ok {
		kind, ref = "group", key
	}
	switch kind {
	case "user":
		id, err := strconv.Atoi(ref)
		if err != nil || id <= 0 {
			break
		}
		return Subject{Kind: datasetpermission.SubjectUser, ID: id}, nil
	case "group":
		return ParseGroupRef(ref)
	}
	return Subject{}, apperr.New(apperr.NotFound, "Permission %q not found: ids look like user.4, group.7 or group.everyone.", key)
}

// ParseGroupRef reads a group reference: an id, `everyone` or
// `administrators`.
func ParseGroupRef(ref string) (Subject, error) {
	switch ref {
	case "everyone":
		return Subject{Kind: datasetpermission.SubjectEveryone}, nil
	case "administrators":
		return Subject{Kind: datasetpermission.SubjectAdministrators}, nil
	}
	id, err := strconv.Atoi(ref)
	if err != nil || id <= 0 {
		return Subject{}, apperr.Field("group", fmt.Sprintf("%q is not a group: give a group id, everyone or administrators.", ref))
	}
	return Subject{Kind: datasetpermission.SubjectGroup, ID: id}, nil
}

// SubjectRef names a grant's holder as a request gives it: a user id or a
// group reference (an id, everyone or administrators).
type SubjectRef struct {
	User  *int
	Group *string
}

// CheckSubject validates who a grant is for: exactly one of a user and a
// group, naming a user or group that exists.
func CheckSubject(ctx context.Context, c *ent.Client, ref SubjectRef) (Subject, error) {
	var s Subject
	switch {
	case ref.User != nil && ref.Group != nil:
		return s, apperr.Field("user", "Give a user or a group, not both.")
	case ref.User != nil:
		s = Subject{Kind: datasetpermission.SubjectUser, ID: *ref.User}
		ok, err := c.User.Query().Where(user.ID(s.ID)).Exist(ctx)
		if err != nil {
			return s, err
		}
		if !ok {
			return s, apperr.Field("user", fmt.Sprintf("User %d does not exist.", s.ID))
		}
	case ref.Group != nil:
		var err error
		if s, err = ParseGroupRef(strings.TrimSpace(*ref.Group)); err != nil {
			return s, err
		}
		if s.Kind == datasetpermission.SubjectGroup {
			ok, err := c.Group.Query().Where(group.ID(s.ID)).Exist(ctx)
			if err != nil {
				return s, err
			}
			if !ok {
				return s, apperr.Field("group", fmt.Sprintf("Group %d does not exist.", s.ID))
			}
		}
	default:
		return s, apperr.Field("user", "Give a user or a group.")
	}
	return s, nil
}

// CheckSubjects validates a whole list of grant holders, in order, as
// CheckSubject does each; a holder listed twice fails it.
func CheckSubjects(ctx context.Context, c *ent.Client, refs []SubjectRef) ([]Subject, error) {
	out := make([]Subject, len(refs))
	seen := map[Subject]bool{}
	for i, ref := range refs {
		s, err := CheckSubject(ctx, c, ref)
		if err != nil {
			return nil, err
		}
		if seen[s] {
			return nil, apperr.Field("permissions", s.Key()+" is listed twice.")
		}
		seen[s] = true
		out[i] = s
	}
	return out, nil
}

// grantsOf selects the grants of one dataset.
func grantsOf(c *ent.Client, kind Kind, id int) *ent.DatasetPermissionQuery {
	return c.DatasetPermission.Query().
		Where(datasetpermission.DatasetKindEQ(kind), datasetpermission.DatasetID(id))
}

// FindGrant returns a dataset's grant for the subject key names, NOT_FOUND
// if none.
func FindGrant(ctx context.Context, c *ent.Client, kind Kind, id int, key string) (*ent.DatasetPermission, error) {
	s, err := ParseGrantKey(key)
	if err != nil {
		return nil, apperr.New(apperr.NotFound, "Permission %q not found.", key)
	}
	p, err := grantsOf(c, kind, id).Where(datasetpermission.SubjectEQ(s.Kind), datasetpermission.SubjectID(s.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "Permission %q not found.", key)
	}
	return p, err
}

// subjectRank orders grants by holder: everyone and administrators, then
// groups, then users.
var subjectRank = map[datasetpermission.Subject]int{
	datasetpermission.SubjectEveryone: 0, datasetpermission.SubjectAdministrators: 1,
	datasetpermission.SubjectGroup: 2, datasetpermission.SubjectUser: 3,
}

// ListGrants returns a dataset's grants in a stable order: everyone and
// administrators, then groups, then users, each by id.
func ListGrants(ctx context.Context, c *ent.Client, kind Kind, id int) ([]*ent.DatasetPermission, error) {
	ps, err := grantsOf(c, kind, id).All(ctx)
	if err != nil {
		return nil, err
	}
	sort.Slice(ps, func(i, j int) bool {
		if subjectRank[ps[i].Subject] != subjectRank[ps[j].Subject] {
			return subjectRank[ps[i].Subject] < subjectRank[ps[j].Subject]
		}
		return ps[i].SubjectID < ps[j].SubjectID
	})
	return ps, nil
}

// CreateGrant stores a new grant; CONFLICT when the subject already holds
// one on the dataset.
func CreateGrant(ctx context.Context, c *ent.Client, kind Kind, id int, s Subject, p datasetpermission.Permission) (*ent.DatasetPermission, error) {
	exists, err := grantsOf(c, kind, id).Where(datasetpermission.SubjectEQ(s.Kind), datasetpermission.SubjectID(s.ID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, apperr.New(apperr.Conflict, "%s already holds a permission on this dataset; change it instead.", s.Key())
	}
	return c.DatasetPermission.Create().SetDatasetKind(kind).SetDatasetID(id).
		SetSubject(s.Kind).SetSubjectID(s.ID).SetPermission(p).Save(ctx)
}
