package templates

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a-h/templ/parser/v2"
	"github.com/a-h/templ/parser/v2/visitor"
)

// Every word a reader sees comes from the catalogue, so no template may
// hold English of its own: not in text, not in the attributes a reader or a
// screen reader meets (title, aria-label, placeholder, alt), not in string
// literals of expressions. What stays as the software prints it — inside
// <code> and <pre>, product names, HTML entities and punctuation — is
// allowed.
func TestTemplatesHoldNoUserVisibleEnglish(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	for _, f := range files {
		tf, err := parser.Parse(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, bad := range englishIn(tf) {
			t.Errorf("%s:%d: user-visible English outside the catalogue: %q", f, bad.line, bad.text)
		}
	}
}

// The checker must catch what it is for, or passing proves nothing.
func TestEnglishCheckerCatchesEnglish(t *testing.T) {
	src := `package templates

templ bad(n int) {
	<div title="Change the answer">
		<h2>Most common in this set</h2>
		<p>{ "Remove filter " + "x" }</p>
		<code>kubectl describe pod</code>
		<p>{ t(ctx, "library.filters", "facet", "x") } · &amp; →</p>
		<a class="brand" href="/">Casebook</a>
		@navItem(c, "library", "/", "Library")
	</div>
}
`
	tf, err := parser.ParseString(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range englishIn(tf) {
		got = append(got, b.text)
	}
	want := []string{"Change the answer", "Most common in this set", `"Remove filter "`, `"Library"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("found %q, want %q", got, want)
	}
}

type finding struct {
	line int
	text string
}

// allowed are words shown as they are in both languages.
var allowed = map[string]bool{"Casebook": true, "JSON": true, "API": true, "Atom": true, "Markdown": true, "GPU": true,
	"namespace": true}

var (
	word       = regexp.MustCompile(`[A-Za-z]{2,}`)
	entity     = regexp.MustCompile(`&[a-zA-Z]+;`)
	goString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	identifier = regexp.MustCompile(`^"[a-z][a-z0-9_-]*"$`)
	goComment  = regexp.MustCompile(`(?m)//.*$`)
	msgID      = regexp.MustCompile(`^"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+"$`)
)

// visibleAttrs are the attributes a reader or a screen reader meets.
var visibleAttrs = map[string]bool{"title": true, "aria-label": true, "placeholder": true, "alt": true, "label": true}

func hasEnglish(s string) bool {
	s = entity.ReplaceAllString(s, "")
	for _, w := range word.FindAllString(s, -1) {
		if !allowed[w] {
			return true
		}
	}
	return false
}

func englishIn(tf *parser.TemplateFile) []finding {
	var out []finding
	code := 0
	v := visitor.New()
	elem := v.Element
	v.Element = func(n *parser.Element) error {
		if n.Name == "code" || n.Name == "pre" {
			code++
			defer func() { code-- }()
		}
		return elem(n)
	}
	v.Text = func(n *parser.Text) error {
		if code == 0 && hasEnglish(n.Value) {
			out = append(out, finding{int(n.Range.From.Line) + 1, strings.TrimSpace(n.Value)})
		}
		return nil
	}
	v.ConstantAttribute = func(n *parser.ConstantAttribute) error {
		if visibleAttrs[n.Key.String()] && hasEnglish(n.Value) {
			out = append(out, finding{int(n.Range.From.Line) + 1, n.Value})
		}
		return nil
	}
	literals := func(e parser.Expression) {
		if code > 0 {
			return
		}
		for _, lit := range goString.FindAllString(goComment.ReplaceAllString(e.Value, ""), -1) {
			// Ids, message ids and URL paths are not read as words.
			if identifier.MatchString(lit) || msgID.MatchString(lit) || strings.HasPrefix(lit, `"/`) || !hasEnglish(lit) {
				continue
			}
			out = append(out, finding{int(e.Range.From.Line) + 1, lit})
		}
	}
	v.StringExpression = func(n *parser.StringExpression) error {
		literals(n.Expression)
		return nil
	}
	exprAttr := v.ExpressionAttribute
	v.ExpressionAttribute = func(n *parser.ExpressionAttribute) error {
		if visibleAttrs[n.Key.String()] {
			literals(n.Expression)
		}
		return exprAttr(n)
	}
	v.TemplateFileGoExpression = func(n *parser.TemplateFileGoExpression) error {
		literals(n.Expression)
		return nil
	}
	v.CallTemplateExpression = func(n *parser.CallTemplateExpression) error {
		literals(n.Expression)
		return nil
	}
	templElem := v.TemplElementExpression
	v.TemplElementExpression = func(n *parser.TemplElementExpression) error {
		literals(n.Expression)
		return templElem(n)
	}
	_ = tf.Visit(v)
	return out
}
