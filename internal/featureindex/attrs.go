package featureindex

import (
	"bytes"
	"encoding/json"
	"sort"
)

// OrderedAttributes renders a feature's stored attributes (a JSON object)
// as the JSON object point queries return and tiles read: the layer's fields in order, null
// where absent, then any other names sorted. The index keeps this
// rendering, so queries copy it as is.
func OrderedAttributes(fields []string, attrs []byte) []byte {
	var m map[string]json.RawMessage
	if len(attrs) > 0 {
		_ = json.Unmarshal(attrs, &m)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		seen[f] = true
		if i > 0 {
			b.WriteByte(',')
		}
		WriteJSONString(&b, f)
		b.WriteByte(':')
		writeValue(&b, m[f])
	}
	var extra []string
	for k := range m {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		WriteJSONString(&b, k)
		b.WriteByte(':')
		writeValue(&b, m[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// WriteJSONString writes s as a JSON string; plain printable ASCII is
// written directly, anything else through encoding/json.
func WriteJSONString(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s)
			b.Write(enc)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// writeValue writes a stored attribute value, null when absent.
func writeValue(b *bytes.Buffer, v json.RawMessage) {
	if len(v) == 0 {
		b.WriteString("null")
		return
	}
	b.Write(v)
}
