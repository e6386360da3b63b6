package rastertiles

import (
	"encoding/hex"
	"fmt"
	"image/color"
	"strings"
)

// Format is a tile image format.
type Format string

// The formats tiles come in.
const (
	PNG  Format = "png"
	JPEG Format = "jpeg"
	WebP Format = "webp"
)

// ParseFormat reads a file extension (png, jpg, jpeg, webp) or a media
// type (image/png, ...); ok is false for others.
func ParseFormat(s string) (Format, bool) {
	switch strings.ToLower(strings.TrimPrefix(strings.ToLower(s), "image/")) {
	case "png":
		return PNG, true
	case "jpg", "jpeg":
		return JPEG, true
	case "webp":
		return WebP, true
	}
	return "", false
}

// ContentType is the format's media type.
func (f Format) ContentType() string { return "image/" + string(f) }

// Ext is the format's file extension.
func (f Format) Ext() string { return string(f) }

// Formats lists the formats served.
var Formats = []Format{PNG, JPEG, WebP}

// Style is how tiles are drawn: Color, when set, is the colour of vector
// layers (else each layer's default).
type Style struct {
	Color *color.NRGBA
}

// DefaultStyle is the identifier of the default style.
const DefaultStyle = "style=auto"

// ParseStyle reads a style string: comma-separated "style=ID" (auto or a
// style id) and "color=RRGGBB" (a leading # allowed), or a bare "auto";
// empty is the default style.
func ParseStyle(s string) (Style, error) {
	var st Style
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		k, v, found := strings.Cut(part, "=")
		switch {
		case part == "" || part == "auto" || part == "default":
		case found && strings.EqualFold(k, "style"):
			// auto or a style id: styles other than the default are
			// not kept yet, so every id draws the default style.
		case found && (strings.EqualFold(k, "color") || strings.EqualFold(k, "colour")):
			c, err := parseColor(v)
			if err != nil {
				return Style{}, err
			}
			st.Color = &c
		default:
			return Style{}, fmt.Errorf("style %q: expected style=auto or style=ID, and color=RRGGBB, separated by commas", s)
		}
	}
	return st, nil
}

func parseColor(v string) (color.NRGBA, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(v, "#"), "0x"))
	if err != nil || (len(b) != 3 && len(b) != 4) {
		return color.NRGBA{}, fmt.Errorf("color %q: expected six hexadecimal digits (RRGGBB)", v)
	}
	c := color.NRGBA{R: b[0], G: b[1], B: b[2], A: 255}
	if len(b) == 4 {
		c.A = b[3]
	}
	return c, nil
}

// key is the style's part of a cache key.
func (st Style) key() string {
	if st.Color == nil {
		return ""
	}
	c := st.Color
	return hex.EncodeToString([]byte{c.R, c.G, c.B, c.A})
}

// palette holds the default colours of vector layers, chosen by id.
var palette = []color.NRGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, {R: 0xd6, G: 0x27, B: 0x28, A: 255}, {R: 0x2c, G: 0xa0, B: 0x2c, A: 255},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 255}, {R: 0x94, G: 0x67, B: 0xbd, A: 255}, {R: 0x8c, G: 0x56, B: 0x4b, A: 255},
	{R: 0xe3, G: 0x77, B: 0xc2, A: 255}, {R: 0x17, G: 0xbe, B: 0xcf, A: 255},
}

// colorOf is the colour a vector layer is drawn in.
func (st Style) colorOf(layerID int) color.NRGBA {
	if st.Color != nil {
		return *st.Color
	}
	return palette[layerID%len(palette)]
}
