package forwarded

import (
	"net/http"
	"strings"
)

// headers is what a proxy says about the client: the addresses of the
// hops in order (the client first), and the scheme and host it used.
type headers struct {
	hops        []string
	proto, host string
}

// read takes Forwarded when present, else the X-Forwarded-* headers. Of
// the scheme and host, the nearest proxy's (the last) word counts.
func read(h http.Header) headers {
	if fwd := h.Values("Forwarded"); len(fwd) > 0 {
		return readForwarded(fwd)
	}
	var out headers
	for _, v := range h.Values("X-Forwarded-For") {
		for _, hop := range strings.Split(v, ",") {
			out.hops = append(out.hops, strings.TrimSpace(hop))
		}
	}
	out.proto = strings.ToLower(lastItem(h.Values("X-Forwarded-Proto")))
	out.host = lastItem(h.Values("X-Forwarded-Host"))
	return out
}

// readForwarded reads RFC 7239 elements: for=, proto=, host=.
func readForwarded(values []string) headers {
	var out headers
	for _, v := range values {
		for _, elem := range strings.Split(v, ",") {
			for _, pair := range strings.Split(elem, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if !ok {
					continue
				}
				val = strings.Trim(val, `"`)
				switch strings.ToLower(k) {
				case "for":
					out.hops = append(out.hops, nodeAddr(val))
				case "proto":
					out.proto = strings.ToLower(val)
				case "host":
					out.host = val
				}
			}
		}
	}
	return out
}

// nodeAddr is the address of a Forwarded node: "192.0.2.1",
// "192.0.2.1:80", "[2001:db8::1]" or "[2001:db8::1]:80"; obfuscated and
// unknown nodes come back as they are (not addresses).
func nodeAddr(n string) string {
	if strings.HasPrefix(n, "[") {
		if end := strings.IndexByte(n, ']'); end > 0 {
			return n[1:end]
		}
		return n
	}
	if i := strings.IndexByte(n, ':'); i >= 0 && strings.Count(n, ":") == 1 {
		return n[:i]
	}
	return n
}

// lastItem is the last comma-separated item of the last value.
func lastItem(values []string) string {
	if len(values) == 0 {
		return ""
	}
	items := strings.Split(values[len(values)-1], ",")
	return strings.TrimSpace(items[len(items)-1])
}
