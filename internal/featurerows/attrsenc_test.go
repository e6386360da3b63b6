package featurerows

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// encValue is one value as a reader gives it, for AttrsEncoder, and as a
// map's value, for appendAttrs.
type encValue struct {
	write func(w *ValueWriter)
	any   any
}

func randomValue(r *rand.Rand) encValue {
	switch r.IntN(9) {
	case 0:
		return encValue{func(w *ValueWriter) { w.Null() }, nil}
	case 1:
		return encValue{func(w *ValueWriter) {}, nil} // nothing written: null
	case 2:
		b := r.IntN(2) == 0
		return encValue{func(w *ValueWriter) { w.Bool(b) }, b}
	case 3:
		i := r.Int64() - math.MaxInt64/2
		return encValue{func(w *ValueWriter) { w.Int(i) }, i}
	case 4:
		f := []float64{r.NormFloat64() * 1e6, 1e-9, 1e22, math.NaN(), math.Inf(-1), 0, -0.5}[r.IntN(7)]
		return encValue{func(w *ValueWriter) { w.Float(f) }, f}
	case 5:
		s := []string{"", "x", "é\u2028\x00\"\\\n", "\xff", "12:34:56.5", "9:05", "2024-01-02", "<b>"}[r.IntN(8)]
		return encValue{func(w *ValueWriter) { w.Text([]byte(s)) }, s}
	default:
		zone := time.FixedZone("", (r.IntN(96)-48)*15*60)
		t := time.Date(1900+r.IntN(200), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000)*1e6, zone)
		return encValue{func(w *ValueWriter) { w.Time(t) }, t}
	}
}

// AttrsEncoder writes the bytes the Writer makes of the same values as a
// map after StoreDates: keys sorted, dates as dates, times of day as
// such, the last of fields named alike.
func TestAttrsEncoderMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pool := []string{"a", "b", "name", "Name", "é", "d", "t", "z", "a b", ""}
	for range 2000 {
		n := r.IntN(7)
		names := make([]string, n)
		for i := range names {
			names[i] = pool[r.IntN(len(pool))]
		}
		// As DateFields and TimeFields make them: only true entries.
		dates, times := map[string]bool{"d": true}, map[string]bool{"t": true}
		if r.IntN(2) == 0 {
			dates["b"] = true
		}
		if r.IntN(2) == 0 {
			times["z"] = true
		}
		vals := make([]encValue, n)
		m := map[string]any{}
		for i := range vals {
			vals[i] = randomValue(r)
			m[names[i]] = vals[i].any
		}
		StoreDates(m, dates, times)
		want, err := appendAttrs(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		enc := NewAttrsEncoder(names, dates, times)
		got := enc.Encode([]byte("prefix"), func(i int, w *ValueWriter) { vals[i].write(w) })
		if string(got) != "prefix"+string(want) {
			t.Fatalf("fields %q: Encode = %s\nwant %s", names, got[6:], want)
		}
	}
}
