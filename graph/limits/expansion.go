package limits

import "github.com/vektah/gqlparser/v2/ast"

// expansion measures a document as the validator and the executor see it:
// with every fragment spread replaced by the fragment's selections. Sizes
// of fragments are memoized, so nested spreads that double at each level
// are measured in linear time; cycles count as empty (the validator
// refuses them).
type expansion struct {
	doc      *ast.QueryDocument
	max      int
	sizes    map[string]int
	visiting map[string]bool
}

func newExpansion(doc *ast.QueryDocument, max int) *expansion {
	return &expansion{doc: doc, max: max, sizes: map[string]int{}, visiting: map[string]bool{}}
}

// total is the number of selections of every operation and fragment
// definition, spreads expanded. It stops counting once past max.
func (e *expansion) total() int {
	n := 0
	for _, op := range e.doc.Operations {
		n = e.add(n, e.size(op.SelectionSet))
	}
	for _, f := range e.doc.Fragments {
		n = e.add(n, e.fragmentSize(f.Name))
	}
	return n
}

// add sums sizes, saturating just past max so that sums cannot overflow.
func (e *expansion) add(a, b int) int {
	if e.max > 0 && a+b > e.max {
		return e.max + 1
	}
	return a + b
}

func (e *expansion) size(ss ast.SelectionSet) int {
	n := 0
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			n = e.add(n, e.add(1, e.size(s.SelectionSet)))
		case *ast.InlineFragment:
			n = e.add(n, e.size(s.SelectionSet))
		case *ast.FragmentSpread:
			n = e.add(n, e.fragmentSize(s.Name))
		}
	}
	return n
}

func (e *expansion) fragmentSize(name string) int {
	if n, ok := e.sizes[name]; ok {
		return n
	}
	f := e.doc.Fragments.ForName(name)
	if f == nil || e.visiting[name] {
		return 0
	}
	e.visiting[name] = true
	n := e.size(f.SelectionSet)
	delete(e.visiting, name)
	e.sizes[name] = n
	return n
}

// mostRepeated finds the response name selected most often in one
// selection set and how often. Sets are merged as the validator's
// field-merging rule merges them: through inline fragments and spreads,
// and the sub-selections of every field of one response name together
// (a { x } a { x } selects x twice under a). Call it only once total is
// within bounds: it walks the expanded document.
func (e *expansion) mostRepeated() (string, int) {
	r := repeats{e: e}
	for _, op := range e.doc.Operations {
		r.walk([]ast.SelectionSet{op.SelectionSet})
	}
	for _, f := range e.doc.Fragments {
		r.walk([]ast.SelectionSet{f.SelectionSet})
	}
	return r.name, r.n
}

type repeats struct {
	e    *expansion
	name string
	n    int
}

// walk checks the merged selection sets and, per response name, the
// merged sub-selections under it.
func (r *repeats) walk(sets []ast.SelectionSet) {
	counts := map[string]int{}
	children := map[string][]ast.SelectionSet{}
	for _, ss := range sets {
		r.collect(ss, counts, children, map[string]bool{})
	}
	for name, n := range counts {
		if n > r.n {
			r.name, r.n = name, n
		}
	}
	for _, kids := range children {
		r.walk(kids)
	}
}

// collect counts the response names of ss, through fragments, and
// gathers their sub-selections.
func (r *repeats) collect(ss ast.SelectionSet, counts map[string]int, children map[string][]ast.SelectionSet, seen map[string]bool) {
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			counts[s.Alias]++
			if len(s.SelectionSet) > 0 {
				children[s.Alias] = append(children[s.Alias], s.SelectionSet)
			}
		case *ast.InlineFragment:
			r.collect(s.SelectionSet, counts, children, seen)
		case *ast.FragmentSpread:
			if f := r.e.doc.Fragments.ForName(s.Name); f != nil && !seen[s.Name] {
				seen[s.Name] = true
				r.collect(f.SelectionSet, counts, children, seen)
				delete(seen, s.Name)
			}
		}
	}
}
