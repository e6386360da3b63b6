package graph

import (
	"context"
	"sync"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/ent/groupmembership"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/catalogterms"
)

// loaders are request-scoped batch loaders. A list resolver registers the
// ids it returns; the first per-item lookup then loads the data of every
// registered item in one query, so lists never cost a query per item,
// whether GraphQL or the REST adapter walks them.
type loaders struct {
	mu sync.Mutex
	// groups registered by list resolvers and not loaded yet.
	pendingGroups map[int]struct{}
	// members of a group, with their users.
	members map[int][]*ent.GroupMembership
	// the caller's permission per group; absent key: not loaded; nil
	// value: not a member.
	callerPerm map[int]*groupmembership.Permission
	// member counts per group.
	memberCounts map[int]int
	// users and groups primed by list resolvers.
	users     map[int]*ent.User
	groupByID map[int]*ent.Group
	// sets batches the lookups of sets and their members.
	sets setLoader
	// layers, documents and items batch the lookups of listed layers,
	// tables, documents and catalog items.
	layers    layerLoader
	documents documentLoader
	items     itemLoader
	// stars holds the caller's starred datasets per type.
	stars starLoader
	// levels remembers the caller's level per dataset or source;
	// sources holds the sources loaded by id.
	levels  map[levelKey]access.Level
	sources map[int]*ent.Source
	// managed holds the users the caller manages through a group; nil
	// until loaded.
	managed map[int]bool
	// catalogue holds the licences and categories, read once.
	catalogue catalogterms.Cache
}

type loadersKey struct{}

// WithLoaders returns ctx carrying fresh request-scoped loaders. The HTTP
// middleware calls it once per request.
func WithLoaders(ctx context.Context) context.Context {
	return context.WithValue(ctx, loadersKey{}, newLoaders())
}

func newLoaders() *loaders {
	return &loaders{
		pendingGroups: map[int]struct{}{},
		members:       map[int][]*ent.GroupMembership{},
		callerPerm:    map[int]*groupmembership.Permission{},
		memberCounts:  map[int]int{},
		users:         map[int]*ent.User{},
		groupByID:     map[int]*ent.Group{},
		levels:        map[levelKey]access.Level{},
		sources:       map[int]*ent.Source{},
	}
}

func loadersFrom(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	return newLoaders()
}

// registerGroups remembers groups a list returned, so their per-item data
// loads in one batch.
func (l *loaders) registerGroups(groups []*ent.Group) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range groups {
		l.pendingGroups[g.ID] = struct{}{}
	}
}

// batch returns id plus every registered group whose data under loaded is
// missing.
func (l *loaders) batch(id int, loaded func(int) bool) []int {
	ids := []int{id}
	for g := range l.pendingGroups {
		if g != id && !loaded(g) {
			ids = append(ids, g)
		}
	}
	return ids
}

// groupMembers returns the members of a group, users loaded.
func (l *loaders) groupMembers(ctx context.Context, c *ent.Client, groupID int) ([]*ent.GroupMembership, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.members[groupID]; ok {
		return m, nil
	}
	ids := l.batch(groupID, func(g int) bool { _, ok := l.members[g]; return ok })
	rows, err := c.GroupMembership.Query().
		Where(groupmembership.GroupIDIn(ids...)).
		WithUser().
		Order(ent.Asc(groupmembership.FieldID)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		l.members[id] = []*ent.GroupMembership{}
	}
	for _, m := range rows {
		l.members[m.GroupID] = append(l.members[m.GroupID], m)
	}
	return l.members[groupID], nil
}

// callerPermission returns userID's permission in a group, nil when not a
// member.
func (l *loaders) callerPermission(ctx context.Context, c *ent.Client, userID, groupID int) (*groupmembership.Permission, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.callerPerm[groupID]; ok {
		return p, nil
	}
	ids := l.batch(groupID, func(g int) bool { _, ok := l.callerPerm[g]; return ok })
	rows, err := c.GroupMembership.Query().
		Where(groupmembership.UserID(userID), groupmembership.GroupIDIn(ids...)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		l.callerPerm[id] = nil
	}
	for _, m := range rows {
		p := m.Permission
		l.callerPerm[m.GroupID] = &p
	}
	return l.callerPerm[groupID], nil
}

// forgetCaller drops cached caller permissions after a membership change.
func (l *loaders) forget() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.members = map[int][]*ent.GroupMembership{}
	l.callerPerm = map[int]*groupmembership.Permission{}
	l.memberCounts = map[int]int{}
	l.managed = nil
}

// memberCount returns the number of members of a group.
func (l *loaders) memberCount(ctx context.Context, c *ent.Client, groupID int) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.memberCounts[groupID]; ok {
		return n, nil
	}
	ids := l.batch(groupID, func(g int) bool { _, ok := l.memberCounts[g]; return ok })
	var rows []struct {
		GroupID int `json:"group_id"`
		Count   int `json:"count"`
	}
	err := c.GroupMembership.Query().
		Where(groupmembership.GroupIDIn(ids...)).
		GroupBy(groupmembership.FieldGroupID).
		Aggregate(ent.Count()).
		Scan(ctx, &rows)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		l.memberCounts[id] = 0
	}
	for _, r := range rows {
		l.memberCounts[r.GroupID] = r.Count
	}
	return l.memberCounts[groupID], nil
}
