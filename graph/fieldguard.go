package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/geopub/geopub/ent"
	"github.com/geopub/geopub/internal/access"
	"github.com/geopub/geopub/internal/apperr"
)

// Every object field that returns an entity (an object type with an id)
// or a connection or page of them must read only what the entity's direct
// lookup (its root query, its REST URL) would give the caller. fieldGuards
// names, for each such field, how it keeps to that rule; guardFields, the
// middleware every GraphQL field passes through, runs a guard's check on
// the field's result and refuses to serve an entity field that has no
// guard, so a new field cannot bypass the rules: it fails until it is
// given one (TestGraphQLAuthorizationMatrix fails too).

// fieldGuard is how one entity field keeps to the read rule.
type fieldGuard struct {
	// rule says in a sentence why the caller may read what the field
	// returns.
	rule string
	// check, when set, runs on the field's result with the object the
	// field belongs to and returns what the caller may see of it.
	check func(ctx context.Context, r *Resolver, parent, result any) (any, error)
}

// The rules most fields share.
const (
	ruleResolver   = "its resolver loads through the entity's read rule (the same predicate or level check as the direct lookup)"
	ruleParent     = "it belongs to the object it hangs from, which the caller could read; it is readable wherever that object is"
	ruleUserRef    = "a user reference: names only unless the caller may look the user up (redactUser)"
	ruleGroupRef   = "a group reference: groups are public by name (GET /groups/{id} answers every caller)"
	ruleRoot       = "the direct lookup: its resolver applies the entity's read rule"
	ruleAdminGrant = "served to administrators of the parent only (grantsIfAdmin / the service owner's admin check)"
	ruleReference  = "public reference data: licences and categories are readable by anyone (GET /licenses/, /categories/)"
	ruleLicense    = "a licence: public reference data (GET /licenses/{id}/ answers anyone)"
)

// fieldGuards is the guard of every entity field of the schema, keyed by
// "Type.field".
var fieldGuards = map[string]fieldGuard{
	"AccessRequest.group": {rule: ruleGroupRef},
	"AccessRequest.user":  {rule: ruleUserRef},

	"CatalogItem.attachments":      {rule: ruleResolver},
	"CatalogItem.draftVersion":     {rule: "drafts only for editors of the item (canEditItem)"},
	"CatalogItem.geotags":          {rule: ruleParent},
	"CatalogItem.latestVersion":    {rule: "the draft for editors, else the published version"},
	"CatalogItem.myAccessRequest":  {rule: "the caller's own request only"},
	"CatalogItem.permissions":      {rule: ruleAdminGrant},
	"CatalogItem.publishedVersion": {rule: ruleParent},
	"CatalogItem.services":         {rule: ruleAdminGrant},
	"CatalogItemVersion.metadata":  {rule: ruleParent},
	"CreatedToken.token":           {rule: "the caller's own new token"},
	"DatasetAccessRequest.user":    {rule: ruleUserRef},
	"DatasetPermission.group":      {rule: ruleGroupRef},
	"DatasetPermission.user":       {rule: ruleUserRef},

	"Datasource.source":   {rule: "null unless the caller may view the source (datasourceResolver.Source)", check: requireSourceLevel(access.View)},
	"Datasource.metadata": {rule: "null unless the caller may view the source (datasourceResolver.Metadata)"},

	"Document.draftVersion":     {rule: "drafts only for editors (canEditDocument)"},
	"Document.latestVersion":    {rule: "the draft for editors, else the published version"},
	"Document.permissions":      {rule: ruleAdminGrant},
	"Document.publishedVersion": {rule: ruleParent},
	"Document.versions":         {rule: ruleResolver},
	"DocumentVersion.document":  {rule: ruleParent},
	"DocumentVersion.metadata":  {rule: ruleParent},

	"Feedback.assignee":          {rule: ruleUserRef},
	"Feedback.attachments":       {rule: ruleResolver},
	"Feedback.createdBy":         {rule: ruleUserRef},
	"Feedback.ticketedObject":    {rule: ruleResolver},
	"Feedback.updates":           {rule: ruleParent},
	"FeedbackRecord.attachments": {rule: ruleResolver},
	"FeedbackRecord.createdBy":   {rule: ruleUserRef},

	"Group.permissions":          {rule: "members are listed to members and site administrators only (the group's resolver)"},
	"GroupPermissionEntry.group": {rule: ruleGroupRef},
	"GroupPermissionEntry.user":  {rule: ruleUserRef},

	"Layer.draftVersion":           {rule: "drafts only for editors (mayEditLayer)"},
	"Layer.latestVersion":          {rule: "the draft for editors, else the published version"},
	"Layer.permissions":            {rule: ruleAdminGrant},
	"Layer.publishedVersion":       {rule: ruleParent},
	"Layer.services":               {rule: ruleResolver},
	"Layer.versions":               {rule: "LayerVersions: drafts only for editors"},
	"LayerDiff.from":               {rule: "LayerDiffPlan loads both versions through loadVersion (drafts only for editors) after the kart-diff service check"},
	"LayerDiff.to":                 {rule: "LayerDiffPlan loads both versions through loadVersion (drafts only for editors) after the kart-diff service check"},
	"SetDiff.from":                 {rule: "SetDiffOf loads both set versions through diffVersions/loadVersion (drafts only for editors) after the set's kart-diff service check"},
	"SetDiff.to":                   {rule: "SetDiffOf loads both set versions through diffVersions/loadVersion (drafts only for editors) after the set's kart-diff service check"},
	"SetMember.layer":              {rule: "sets.CompareVersions compares only the members layerVisible admits, as the set's member lists do"},
	"SetMember.version":            {rule: "a published or superseded version (sets.MemberVersions picks no other) of a member layer the caller may see, which any reader of the layer may look up"},
	"SetMemberChange.layer":        {rule: "sets.CompareVersions compares only the members layerVisible admits, as the set's member lists do"},
	"SetMemberChange.fromVersion":  {rule: "a published or superseded version (sets.MemberVersions picks no other) of a member layer the caller may see, which any reader of the layer may look up"},
	"SetMemberChange.toVersion":    {rule: "a published or superseded version (sets.MemberVersions picks no other) of a member layer the caller may see, which any reader of the layer may look up"},
	"CatalogItemDiff.from":         {rule: "CatalogItemDiffOf loads both versions through diffVersions/loadVersion (drafts only for editors) after the item's kart-diff service check"},
	"CatalogItemDiff.to":           {rule: "CatalogItemDiffOf loads both versions through diffVersions/loadVersion (drafts only for editors) after the item's kart-diff service check"},
	"LayerVersion.license":         {rule: ruleLicense},
	"SetVersion.license":           {rule: ruleLicense},
	"DocumentVersion.license":      {rule: ruleLicense},
	"LayerVersion.datasources":     {rule: "the version's provenance: datasources come redacted (redactDatasource) and without their source unless the caller may view it"},
	"LayerVersion.layer":           {rule: ruleParent},
	"LayerVersion.metadata":        {rule: ruleParent},
	"LoginPayload.user":            {rule: "the caller themself"},
	"CreateExportPayload.export":   {rule: "the export the caller has just created: theirs (exports.Service.Create)"},
	"ExportItemValidation.license": {rule: ruleLicense},
	"Set.draftVersion":             {rule: "drafts only for editors"},
	"Set.items":                    {rule: ruleResolver},
	"Set.latestVersion":            {rule: "the draft for editors, else the published version"},
	"Set.permissions":              {rule: ruleAdminGrant},
	"Set.publishedVersion":         {rule: ruleParent},
	"Set.services":                 {rule: ruleResolver},
	"Set.versions":                 {rule: ruleResolver},
	"SetVersion.items":             {rule: ruleResolver},
	"SetVersion.metadata":          {rule: ruleParent},
	"SetVersion.set":               {rule: ruleParent},
	"ServicePermission.group":      {rule: ruleGroupRef},
	"ServicePermission.user":       {rule: ruleUserRef},
	"UserAccess.on":                {rule: ruleGroupRef},
	"Scan.source":                  {rule: "scans are read with edit on their source, which they return", check: requireSourceLevel(sourceScanLevel)},
	"Source.datasources":           {rule: "the source's own datasources: readable with view on it, as GET /sources/{id}/datasources/"},
	"Source.group":                 {rule: ruleGroupRef},
	"Source.permissions":           {rule: ruleAdminGrant},
	"Source.scans":                 {rule: "scans and their logs need edit on the source (GET /sources/{id}/scans/)", check: sourceScans},
	"Source.user":                  {rule: ruleUserRef},
	"Subscription.notifications":   {rule: "the caller's own notifications"},

	// The root queries are the direct lookups: each loads through its
	// entity's read rule (load*, *Visible, sourceWhere, visibleUser).
	"Query.accessRequest":             {rule: ruleRoot},
	"AuditEntry.target":               {rule: "part of an entry audit.List let the caller read"},
	"Query.auditEntries":              {rule: "site admins read every entry, group admins the entries naming their groups, others none (audit.List)"},
	"Query.catalogItem":               {rule: ruleRoot},
	"Query.search":                    {rule: "the search engine applies the datasets' read rule live (access.Viewer.VisibleSQL): published versions to viewers, drafts to editors"},
	"Query.catalogItemAccessRequest":  {rule: ruleRoot},
	"Query.catalogItemAccessRequests": {rule: ruleRoot},
	"Query.catalogItemFeedback":       {rule: ruleRoot},
	"Query.catalogItemSearch":         {rule: ruleRoot},
	"Query.catalogItemVersion":        {rule: ruleRoot},
	"Query.catalogItemVersions":       {rule: ruleRoot},
	"Query.datasetPermission":         {rule: ruleRoot},
	"Query.datasetPermissions":        {rule: ruleRoot},
	"Query.datasetService":            {rule: ruleRoot},
	"Query.datasetServices":           {rule: ruleRoot},
	"Query.datasource":                {rule: ruleRoot},
	"Query.cropLayers":                {rule: "crop layers are for every signed-in caller (croplayers.Service.List requires a user with exports:read)"},
	"Query.cropLayer":                 {rule: ruleRoot},
	"CropLayer.features":              {rule: "a crop layer's features are readable wherever the crop layer is (croplayers.Service.Features applies the same rule)"},
	"CropLayer.feature":               {rule: "a crop layer's feature is readable wherever the crop layer is (croplayers.Service.Feature applies the same rule)"},
	"Query.document":                  {rule: ruleRoot},
	"Query.documentSearch":            {rule: ruleRoot},
	"Query.documentVersion":           {rule: ruleRoot},
	"Query.documentVersions":          {rule: ruleRoot},
	"Query.externalServiceTemplate":   {rule: ruleRoot},
	"Query.externalServiceTemplates":  {rule: ruleRoot},
	"Query.export":                    {rule: "the caller's own export, any for site administrators (exports.Service.Get)"},
	"Query.exports":                   {rule: "the caller's own exports; every user's only for site administrators asking with all (exports.Service.Query)"},
	"Query.feedback":                  {rule: ruleRoot},
	"Query.feedbackSearch":            {rule: ruleRoot},
	"Query.group":                     {rule: ruleRoot},
	"Query.groupAccessRequests":       {rule: ruleRoot},
	"Query.groupMember":               {rule: ruleRoot},
	"Query.groupMembers":              {rule: ruleRoot},
	"Query.groupSearch":               {rule: ruleRoot},
	"Query.groups":                    {rule: ruleRoot},
	"Query.layer":                     {rule: ruleRoot},
	"Query.license":                   {rule: ruleReference},
	"Query.licenses":                  {rule: ruleReference},
	"Query.categories":                {rule: ruleReference},
	"Query.layerSearch":               {rule: ruleRoot},
	"Query.layerVersion":              {rule: ruleRoot},
	"Query.layerVersions":             {rule: ruleRoot},
	"Query.me":                        {rule: ruleRoot},
	"Query.mySessions":                {rule: "the caller's own sessions only (accounts.Service.Sessions)"},
	"Query.myAccessRequest":           {rule: ruleRoot},
	"Query.notifications":             {rule: ruleRoot},
	"Query.publishGroup":              {rule: ruleRoot},
	"Query.publishGroups":             {rule: ruleRoot},
	"Query.scan":                      {rule: ruleRoot},
	"Query.scans":                     {rule: ruleRoot},
	"Query.set":                       {rule: ruleRoot},
	"Query.setSearch":                 {rule: ruleRoot},
	"Query.setVersion":                {rule: ruleRoot},
	"Query.setVersions":               {rule: ruleRoot},
	"Query.sets":                      {rule: ruleRoot},
	"Query.source":                    {rule: ruleRoot},
	"Query.sourceDatasources":         {rule: ruleRoot},
	"Query.sourceScans":               {rule: ruleRoot},
	"Query.sourceSearch":              {rule: ruleRoot},
	"Query.token":                     {rule: ruleRoot},
	"Query.tokens":                    {rule: ruleRoot},
	"Query.user":                      {rule: ruleRoot},
	"Query.userSearch":                {rule: ruleRoot},
	"Query.users":                     {rule: ruleRoot},
	"Query.webhook":                   {rule: ruleRoot},
	"Query.webhooks":                  {rule: ruleRoot},

	"WebhookDeliveryPage.deliveries": {rule: ruleParent},
	"WebhookEndpoint.group":          {rule: ruleGroupRef},
	"WebhookWithSecret.endpoint":     {rule: "the endpoint its caller just made or rotated"},
}

// guardFields is the GraphQL field middleware that applies fieldGuards
// and redacts every user, source and datasource a field returns.
func (r *Resolver) guardFields(entityFields map[string]bool) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if fc == nil || fc.Field.Field == nil {
			return next(ctx)
		}
		key := fc.Object + "." + fc.Field.Name
		g, guarded := fieldGuards[key]
		if !guarded && entityFields[key] {
			return nil, apperr.New(apperr.Internal, "Field %s has no read guard.", key)
		}
		res, err := next(ctx)
		if err != nil {
			return res, err
		}
		if g.check != nil {
			if res, err = g.check(ctx, r, parentOf(fc), res); err != nil {
				return nil, err
			}
		}
		return r.redact(ctx, res)
	}
}

// parentOf returns the object a field belongs to.
func parentOf(fc *graphql.FieldContext) any {
	if fc.Parent == nil {
		return nil
	}
	return fc.Parent.Result
}

// requireSourceLevel is the check of a field returning a source: null (or
// NOT_FOUND when the field may not be null) below min.
func requireSourceLevel(min access.Level) func(context.Context, *Resolver, any, any) (any, error) {
	return func(ctx context.Context, r *Resolver, _ any, res any) (any, error) {
		s, _ := res.(*ent.Source)
		if s == nil {
			return res, nil
		}
		lv, err := r.sourceLevel(ctx, s)
		if err != nil {
			return nil, err
		}
		if lv < min {
			if graphql.GetFieldContext(ctx).Field.Definition.Type.NonNull {
				return nil, apperr.New(apperr.NotFound, "Source %d not found.", s.ID)
			}
			return (*ent.Source)(nil), nil
		}
		return s, nil
	}
}

// sourceScans is the check of Source.scans: an empty list below edit.
func sourceScans(ctx context.Context, r *Resolver, parent, res any) (any, error) {
	s := objectOf[ent.Source](parent)
	if s == nil {
		return nil, apperr.New(apperr.Internal, "Source.scans without its source.")
	}
	lv, err := r.sourceLevel(ctx, s)
	if err != nil {
		return nil, err
	}
	if lv < sourceScanLevel {
		return &ent.ScanConnection{Edges: []*ent.ScanEdge{}}, nil
	}
	return res, nil
}

// objectOf reads a parent object that gqlgen holds as *T, or as **T for an
// item of a list.
func objectOf[T any](v any) *T {
	switch x := v.(type) {
	case *T:
		return x
	case **T:
		if x != nil {
			return *x
		}
	}
	return nil
}

// EntityFields lists "Type.field" of every field that returns an entity
// (an object type with an id) or a connection or page of them. The items of
// connections and pages are left out: the field that returns the
// connection or page guards them. So are mutations: a mutation returns
// what it changed, to a caller who held the write level on it.
func EntityFields(s *ast.Schema) map[string]bool {
	out := map[string]bool{}
	for name, def := range s.Types {
		if def.Kind != ast.Object || strings.HasPrefix(name, "__") || def == s.Mutation || isContainer(s, def) || isEdge(def) {
			continue
		}
		for _, f := range def.Fields {
			t := s.Types[f.Type.Name()]
			if t != nil && (isEntity(t) || isContainer(s, t)) {
				out[name+"."+f.Name] = true
			}
		}
	}
	return out
}

// isEntity: an object type with an id.
func isEntity(def *ast.Definition) bool {
	return def.Kind == ast.Object && def.Fields.ForName("id") != nil
}

// entityLike: an entity, or a union or interface of entities (the
// catalogue's Dataset).
func entityLike(s *ast.Schema, def *ast.Definition) bool {
	if def == nil {
		return false
	}
	if def.Kind == ast.Union || def.Kind == ast.Interface {
		possible := s.GetPossibleTypes(def)
		for _, p := range possible {
			if !isEntity(p) {
				return false
			}
		}
		return len(possible) > 0
	}
	return isEntity(def)
}

// isEdge: a connection edge (node and cursor).
func isEdge(def *ast.Definition) bool {
	return def.Fields.ForName("node") != nil && def.Fields.ForName("cursor") != nil
}

// isContainer: a connection or page of entities (edges, items or nodes).
func isContainer(s *ast.Schema, def *ast.Definition) bool {
	if def.Kind != ast.Object || isEntity(def) {
		return false
	}
	for _, name := range []string{"edges", "items", "nodes"} {
		f := def.Fields.ForName(name)
		if f == nil {
			continue
		}
		t := s.Types[f.Type.Name()]
		if t != nil && (isEntity(t) || (isEdge(t) && entityLike(s, s.Types[t.Fields.ForName("node").Type.Name()]))) {
			return true
		}
	}
	return false
}

// FieldGuardRules returns the rule of every guarded field, keyed by
// "Type.field", for the authorization matrix test and for documentation.
func FieldGuardRules() map[string]string {
	out := make(map[string]string, len(fieldGuards))
	for k, g := range fieldGuards {
		out[k] = g.rule
	}
	return out
}
