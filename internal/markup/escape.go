package markup

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// escapeRaw renders raw HTML written in the text as visible, escaped text
// instead of dropping it: "<b>" reads as "<b>", and never acts as a tag.
type escapeRaw struct{}

// RegisterFuncs replaces the renderers of inline raw HTML and HTML blocks.
func (escapeRaw) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

func renderRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		_, _ = w.Write(util.EscapeHTML(s.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	var text []byte
	lines := b.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		text = append(text, s.Value(source)...)
	}
	if b.HasClosure() {
		text = append(text, b.ClosureLine.Value(source)...)
	}
	_, _ = w.WriteString("<p>")
	_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(text, "\n")))
	_, _ = w.WriteString("</p>\n")
	return ast.WalkContinue, nil
}
