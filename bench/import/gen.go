package main

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strconv"
)

// generate writes n point Features, one per line (GeoJSON text sequence),
// spread over New Zealand, with a few attributes.
func generate(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	cats := []string{"bridge", "culvert", "ford", "tunnel", "wharf", "Ōtaki ford"}
	var b []byte
	for i := range n {
		b = append(b[:0], `{"type":"Feature","properties":{"id":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"name":"Point `...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `","category":"`...)
		b = append(b, cats[i%len(cats)]...)
		b = append(b, `","value":`...)
		b = strconv.AppendFloat(b, rng.Float64()*1000, 'f', 3, 64)
		b = append(b, `,"active":`...)
		b = strconv.AppendBool(b, i%3 != 0)
		b = append(b, `},"geometry":{"type":"Point","coordinates":[`...)
		b = strconv.AppendFloat(b, 166+rng.Float64()*13, 'f', 6, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, -47+rng.Float64()*13, 'f', 6, 64)
		b = append(b, "]}}\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
