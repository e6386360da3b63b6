package cswserver

import (
	"context"
	"slices"
	"strings"

	"github.com/geopub/geopub/internal/catalogrecords"
)

// domainPropertyNames are the properties GetDomain answers.
var domainPropertyNames = []string{"dc:type", "dc:subject", "dc:title", "dc:identifier", "dct:modified", "dc:publisher", "dc:rights"}

// domainParameterNames are Operation.parameter names GetDomain answers:
// those the capabilities list.
func domainParameterNames() []string {
	var out []string
	for _, op := range Operations {
		for _, p := range operationParams[op] {
			out = append(out, op+"."+p[0].(string))
		}
	}
	return out
}

// maxDomainScan bounds the records a property domain reads.
const maxDomainScan = 20 * catalogrecords.MaxLimit

// domainValues are one property's values on r.
func domainValues(prop string, r *catalogrecords.Record) []string {
	switch prop {
	case "type":
		return []string{string(r.Type)}
	case "subject":
		return subjects(r)
	case "title":
		return []string{r.Title}
	case "id":
		return []string{r.Identifier}
	case "updated":
		if !r.Modified.IsZero() {
			return []string{r.Modified.UTC().Format("2006-01-02T15:04:05Z")}
		}
	case "publisher":
		if r.Publisher.Name != "" {
			return []string{r.Publisher.Name}
		}
	case "license":
		if r.License != nil {
			return []string{r.License.Type}
		}
	}
	return nil
}

func getDomain(ctx context.Context, src Source, c Call) ([]byte, error) {
	r := c.Request
	p := cswPrefix(r.Version)
	x := &xw{}
	x.decl()
	x.open(p+":GetDomainResponse", rootNS(r.Version)...)
	if r.ParameterName != "" {
		for _, name := range splitList(r.ParameterName) {
			op, param, _ := strings.Cut(name, ".")
			var vs []string
			var found bool
			for _, pv := range operationParams[canonicalOp(op)] {
				if strings.EqualFold(pv[0].(string), param) {
					vs, found = pv[1].([]string), true
				}
			}
			if !found {
				return nil, invalid("ParameterName", "%s is not a parameter this service describes", clip(name))
			}
			x.open(p+":DomainValues", "type", p+":Record")
			x.elem(p+":ParameterName", name)
			list(x, p, vs)
			x.close(p + ":DomainValues")
		}
	}
	if r.PropertyName != "" {
		for _, name := range splitList(r.PropertyName) {
			prop := queryable(name)
			if prop == "" || prop == "geometry" || prop == "anytext" || prop == "description" {
				return nil, invalid("PropertyName", "%s has no domain here: ask for one of %s", clip(name), strings.Join(domainPropertyNames, ", "))
			}
			vs, err := scanDomain(ctx, src, c, prop)
			if err != nil {
				return nil, err
			}
			x.open(p+":DomainValues", "type", p+":Record")
			x.elem(p+":PropertyName", name)
			list(x, p, vs)
			x.close(p + ":DomainValues")
		}
	}
	x.close(p + ":GetDomainResponse")
	return x.b.Bytes(), nil
}

func canonicalOp(s string) string {
	op, _ := operation(s)
	return op
}

func list(x *xw, p string, vs []string) {
	x.open(p + ":ListOfValues")
	for _, v := range vs {
		x.elem(p+":Value", v)
	}
	x.close(p + ":ListOfValues")
}

// scanDomain collects the distinct values of prop over the records the
// caller may see (at most maxDomainScan records), sorted.
func scanDomain(ctx context.Context, src Source, c Call, prop string) ([]string, error) {
	seen := map[string]bool{}
	q := catalogrecords.Query{Limit: catalogrecords.MaxLimit, Sort: catalogrecords.SortTitle, Origin: c.Origin}
	if c.Only != "" {
		q.IDs = []string{c.Only}
	}
	for read := 0; read < maxDomainScan; {
		page, err := src.Records(ctx, q)
		if err != nil {
			return nil, sourceError(err)
		}
		for i := range page.Records {
			for _, v := range domainValues(prop, &page.Records[i]) {
				seen[v] = true
			}
		}
		read += len(page.Records)
		if page.Next == "" || len(page.Records) == 0 {
			break
		}
		q.Cursor = page.Next
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}
