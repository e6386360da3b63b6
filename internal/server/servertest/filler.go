package servertest

import "io"

// Filler is a request body of n spaces made up as it is read, so that
// tests can send hundreds of MiB without holding them.
func Filler(n int64) io.Reader { return io.LimitReader(spaces{}, n) }

// spaces reads as endless spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
