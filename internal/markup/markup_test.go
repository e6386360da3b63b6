package markup_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/geopub/geopub/internal/markup"
)

// xssPayloads are well-known injection attempts: raw tags, event handlers,
// script URLs in Markdown links and images, encoded and mixed-case
// variants, and markup that tries to break out of attributes.
var xssPayloads = []string{
	`<script>alert(1)</script>`,
	`<SCRIPT SRC=//evil.example/xss.js></SCRIPT>`,
	`<img src=x onerror=alert(1)>`,
	`<img src="x" onerror="alert(1)">`,
	`<svg onload=alert(1)>`,
	`<svg><script>alert(1)</script></svg>`,
	`<body onload=alert(1)>`,
	`<iframe src="javascript:alert(1)"></iframe>`,
	`<a href="javascript:alert(1)">x</a>`,
	`<a href="JaVaScRiPt:alert(1)">x</a>`,
	`<div style="background:url(javascript:alert(1))">x</div>`,
	`<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
	`<details open ontoggle=alert(1)>`,
	`<input autofocus onfocus=alert(1)>`,
	`<object data="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="></object>`,
	`<embed src="javascript:alert(1)">`,
	`<form action="javascript:alert(1)"><button>x</button></form>`,
	`<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
	`<link rel="stylesheet" href="javascript:alert(1)">`,
	`<style>@import 'javascript:alert(1)';</style>`,
	`[click](javascript:alert(1))`,
	`[click](JAVASCRIPT:alert(1))`,
	`[click](  javascript:alert(1)  )`,
	`[click](javascript&#58;alert(1))`,
	`[click](&#106;avascript:alert(1))`,
	`[click](vbscript:msgbox(1))`,
	`[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
	`![img](javascript:alert(1))`,
	`![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)`,
	`![x" onerror="alert(1)](https://example.com/a.png)`,
	`[x](https://example.com/" onmouseover="alert(1))`,
	`<javascript:alert(1)>`,
	"```html\n<script>alert(1)</script>\n```",
	`<<script>script>alert(1)<</script>/script>`,
	`<scr<script>ipt>alert(1)</scr</script>ipt>`,
	"<a href=\"java\tscript:alert(1)\">x</a>",
	`"><script>alert(1)</script>`,
	`<a href="#" onclick="alert(1)">x</a>`,
	`<p onmouseover=alert(1)>hover</p>`,
}

// executable finds markup that would run in a browser: script, iframe,
// object, embed, style, form and similar elements, on* event attributes,
// and script or data URLs in attributes.
var executable = []*regexp.Regexp{
	regexp.MustCompile(`(?i)<\s*(script|iframe|object|embed|style|svg|math|form|input|button|meta|link|base|details|body)\b`),
	regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`),
	regexp.MustCompile(`(?i)<[^>]*\s(href|src|action|data|formaction)\s*=\s*["']?\s*(javascript|vbscript|data):`),
	regexp.MustCompile(`(?i)<[^>]*\sstyle\s*=`),
}

func TestPayloadsComeBackInert(t *testing.T) {
	for _, p := range xssPayloads {
		out := markup.HTML(p)
		for _, re := range executable {
			if re.MatchString(out) {
				t.Errorf("payload %q rendered %q: matches %s", p, out, re)
			}
		}
		// Tags written in the text come back escaped, shown as written.
		if strings.Contains(strings.ToLower(out), "<script") {
			t.Errorf("payload %q kept a script tag: %q", p, out)
		}
		if strings.HasPrefix(p, "<") && !strings.HasPrefix(p, "<javascript") && !strings.Contains(out, "&lt;") {
			t.Errorf("payload %q: raw HTML should come back escaped, got %q", p, out)
		}
	}
}

// Issue acceptance: "Markup injection attempts in description come back
// escaped in description_html".
func TestEscapedExactly(t *testing.T) {
	got := markup.HTML(`<img src=x onerror=alert(1)> and <b>bold</b>`)
	want := "<p>&lt;img src=x onerror=alert(1)&gt; and &lt;b&gt;bold&lt;/b&gt;</p>"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestHarmlessMarkupRenders(t *testing.T) {
	cases := []struct{ in, want string }{
		{"**bold** and _italic_", "<p><strong>bold</strong> and <em>italic</em></p>"},
		{"- one\n- two", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"},
		{"1. first\n2. second", "<ol>\n<li>first</li>\n<li>second</li>\n</ol>"},
		{"[the site](https://example.com/a?b=1)", `<p><a href="https://example.com/a?b=1" rel="nofollow">the site</a></p>`},
		{"# Title", "<h1>Title</h1>"},
		{"`code` here", "<p><code>code</code> here</p>"},
		{"a < b & c", "<p>a &lt; b &amp; c</p>"},
		{"see https://example.com", `<p>see <a href="https://example.com" rel="nofollow">https://example.com</a></p>`},
		{"![map](https://example.com/map.png)", `<p><img src="https://example.com/map.png" alt="map"></p>`},
		{"", ""},
		{"  \n ", ""},
	}
	for _, c := range cases {
		if got := markup.HTML(c.in); got != c.want {
			t.Errorf("HTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
