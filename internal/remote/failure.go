package remote

import "fmt"

// Failed is Permanent with a formatted message.
func Failed(format string, args ...any) error {
	return Permanent(fmt.Sprintf(format, args...))
}
