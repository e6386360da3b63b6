package cql2

// Expr is a node of a filter: a predicate or a value.
type Expr interface{ expr() }

// Logical is AND or OR over Args.
type Logical struct {
	Op   string // "and", "or"
	Args []Expr
}

// Not negates Arg.
type Not struct{ Arg Expr }

// Compare is a binary comparison: =, <>, <, <=, >, >=.
type Compare struct {
	Op          string
	Left, Right Expr
}

// Like matches Arg against a pattern with % and _ wildcards (\ escapes).
type Like struct {
	Arg, Pattern Expr
}

// Between tests Low <= Arg <= High.
type Between struct {
	Arg, Low, High Expr
}

// In tests Arg against a list.
type In struct {
	Arg  Expr
	List []Expr
}

// IsNull tests for a null or missing value.
type IsNull struct{ Arg Expr }

// Spatial is a spatial predicate of two geometries: S_INTERSECTS, or
// one of the other DE-9IM predicates of SpatialOps.
type Spatial struct {
	Op   string // "s_intersects", "s_within", ... (SpatialOps)
	A, B Expr
}

// Distance is a distance predicate of two geometries, one of them a
// point: within Metres of each other (s_dwithin, FES DWithin) or farther
// (s_beyond, FES Beyond), measured on the WGS 84 spheroid as PostGIS
// measures geography.
type Distance struct {
	Op     string // "s_dwithin" or "s_beyond"
	A, B   Expr
	Metres float64
}

// CaseI is CQL2's CASEI(): a string value folded for a case-insensitive
// comparison or LIKE (other values pass through unchanged).
type CaseI struct{ Arg Expr }

// AccentI is CQL2's ACCENTI(): a string value stripped of its accents
// (decomposed, Unicode NFD, without the nonspacing marks) for an
// accent-insensitive comparison or LIKE.
type AccentI struct{ Arg Expr }

// Property names a feature property (or the geometry).
type Property struct{ Name string }

// Literal is a string, float64, bool, time.Time (timestamp or date) or
// geom.T value.
type Literal struct {
	Value any
	// Date marks a DATE literal (compared by calendar day).
	Date bool
}

func (Logical) expr()  {}
func (Not) expr()      {}
func (Compare) expr()  {}
func (Like) expr()     {}
func (Between) expr()  {}
func (In) expr()       {}
func (IsNull) expr()   {}
func (Spatial) expr()  {}
func (Distance) expr() {}
func (Property) expr() {}
func (CaseI) expr()    {}
func (AccentI) expr()  {}
func (Literal) expr()  {}

// Walk calls visit for e and then for each expression below it, depth
// first.
func Walk(e Expr, visit func(Expr)) {
	visit(e)
	var kids []Expr
	switch e := e.(type) {
	case Logical:
		kids = e.Args
	case Not:
		kids = []Expr{e.Arg}
	case Compare:
		kids = []Expr{e.Left, e.Right}
	case Like:
		kids = []Expr{e.Arg, e.Pattern}
	case Between:
		kids = []Expr{e.Arg, e.Low, e.High}
	case In:
		kids = append([]Expr{e.Arg}, e.List...)
	case IsNull:
		kids = []Expr{e.Arg}
	case Spatial:
		kids = []Expr{e.A, e.B}
	case Distance:
		kids = []Expr{e.A, e.B}
	case CaseI:
		kids = []Expr{e.Arg}
	case AccentI:
		kids = []Expr{e.Arg}
	}
	for _, k := range kids {
		Walk(k, visit)
	}
}

// Properties lists the property names e refers to.
func Properties(e Expr) []string {
	var out []string
	Walk(e, func(e Expr) {
		if p, ok := e.(Property); ok {
			out = append(out, p.Name)
		}
	})
	return out
}
