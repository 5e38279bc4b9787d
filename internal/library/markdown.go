package library

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"
	"gopkg.in/yaml.v3"
)

// Section is one "##" section of a document, rendered to sanitised HTML.
type Section struct {
	ID       string    `json:"id"` // anchor
	Title    string    `json:"title"`
	Markdown string    `json:"markdown"`
	HTML     string    `json:"html"`
	Text     string    `json:"-"` // plain text for search
	Commands []string  `json:"commands,omitempty"`
	Anchors  []Heading `json:"anchors,omitempty"` // "###" and deeper inside the section
	Line     int       `json:"-"`
}

// Heading is a sub-heading with its anchor.
type Heading struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Level int    `json:"level"`
}

// Slug turns heading text into an anchor: lower case, every run of characters
// that are not letters or digits becomes one hyphen. Triage outcomes link to
// these anchors, so the rule is part of the content contract.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}

// ids gives goldmark our slug rule, de-duplicating within one document.
type ids struct {
	seen map[string]int
	// auto holds the ids Generate made, when set: a section's sub-headings
	// with one of those get the id a parse of the section alone would give
	// them (see sectionIDs).
	auto map[string]bool
}

func (s *ids) Generate(value []byte, _ ast.NodeKind) []byte {
	id := Slug(string(value))
	if id == "" {
		id = "section"
	}
	if n := s.seen[id]; n > 0 {
		s.seen[id] = n + 1
		id = fmt.Sprintf("%s-%d", id, n)
	} else {
		s.seen[id] = 1
	}
	if s.auto != nil {
		s.auto[id] = true
	}
	return []byte(id)
}

func (s *ids) Put(value []byte) { s.seen[string(value)]++ }

var md = goldmark.New(
	// Raw HTML stays off (goldmark's default): content is data, not markup.
	goldmark.WithExtensions(extension.GFM, &frontmatter.Extender{}),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithAttribute()),
)

// The sanitiser runs after goldmark as a second line of defence: links keep
// only safe schemes, and ids survive so anchors work.
var policy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("id").Matching(regexp.MustCompile(`^[\p{L}\p{N}-]+$`)).OnElements("h1", "h2", "h3", "h4", "h5", "h6")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[\w+-]+$`)).OnElements("code")
	p.RequireNoFollowOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}()

// document is a parsed Markdown file: its front matter as a YAML node (with
// line numbers relative to the file) and its level-2 sections.
type document struct {
	front     *yaml.Node
	frontLine int // file line of the first front-matter line
	sections  []Section
	preamble  string // text before the first "##", usually empty
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlParserErrors are the messages of yaml.v3's parser (as opposed to its
// scanner). It numbers their lines from 0, so they need one more.
var yamlParserErrors = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected '-' indicator",
	"did not find expected <document start>", "did not find expected key", "did not find expected node content",
	"found duplicate %TAG directive", "found duplicate %YAML directive", "found incompatible YAML document",
	"found undefined tag handle",
}

// yamlErr rewrites yaml.v3's "line N" to file lines by adding offset.
func yamlErr(err error, offset int) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	for _, p := range yamlParserErrors {
		if strings.HasSuffix(msg, ": "+p) {
			offset++
			break
		}
	}
	return yamlLineRE.ReplaceAllStringFunc(msg, func(m string) string {
		var n int
		fmt.Sscanf(m, "line %d", &n)
		return fmt.Sprintf("line %d", n+offset)
	})
}

// YAMLProblem is the problem of a YAML file that does not parse, on the
// file line yaml.v3 names (its parser counts lines from 0, its scanner
// from 1). Gap checks and drills report their YAML through it, so their
// lines agree with the library's own files.
func YAMLProblem(path string, err error, prefix string) Problem {
	return yamlProblem(path, err, 0, prefix)
}

// yamlProblem reports a YAML syntax error on the file line it names; offset
// is the file line just before the YAML starts.
func yamlProblem(path string, err error, offset int, prefix string) Problem {
	msg := yamlErr(err, offset)
	line := offset + 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		fmt.Sscanf(m[1], "%d", &line)
	}
	return Problem{Path: path, Line: line, Msg: prefix + msg}
}

// frontClosed reports whether a line "---" closes the front matter; without
// one, goldmark reads the whole file as YAML and the error names a line of
// the body.
func frontClosed(src []byte) bool {
	for _, line := range bytes.Split(src, []byte("\n"))[1:] {
		if string(bytes.TrimSuffix(line, []byte("\r"))) == "---" {
			return true
		}
	}
	return false
}

// parseDocument splits a Markdown file with YAML front matter. The error is a
// Problem because the caller reports it against the file.
func parseDocument(path string, src []byte) (*document, *Problem) {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return nil, &Problem{Path: path, Line: 1, Msg: "missing front matter: the file must start with a line \"---\""}
	}
	if !frontClosed(src) {
		return nil, &Problem{Path: path, Line: 1, Msg: "front matter is not closed by a line \"---\""}
	}
	if err := checkDocument(src); err != nil {
		p := BoundProblem(path, err)
		return nil, &p
	}
	headingIDs := &ids{seen: map[string]int{}, auto: map[string]bool{}}
	ctx := parser.NewContext(parser.WithIDs(headingIDs))
	root := md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	fm := frontmatter.Get(ctx)
	if fm == nil {
		return nil, &Problem{Path: path, Line: 1, Msg: "front matter is not closed by a line \"---\""}
	}
	var node yaml.Node
	if err := fm.Decode(&node); err != nil {
		p := yamlProblem(path, err, 1, "malformed front matter: ")
		return nil, &p
	}
	if len(node.Content) == 0 || node.Content[0].Kind != yaml.MappingNode {
		return nil, &Problem{Path: path, Line: 2, Msg: "front matter must be a YAML mapping of fields"}
	}
	doc := &document{front: node.Content[0], frontLine: 2}
	doc.sections, doc.preamble = splitSections(src, root, headingIDs.auto)
	return doc, nil
}

// splitSections cuts the body at each level-2 heading found by goldmark (so
// "##" inside code fences is never mistaken for a heading) and renders each
// part from the file's syntax tree, as if it had been parsed on its own
// (auto are the heading ids the parse generated). Parsing each part again
// was a fifth of parsing the library (0.64 s of CPU at 10,000 incidents).
// Two things differ from a part parsed alone, both for the better: link
// references defined in another section resolve, and a section that starts
// with an indented code block keeps it (the part was trimmed of its
// indentation). TestSectionsRenderAsParsedAlone holds the rest equal; all
// 3,468 sections of the shipped library rendered the same both ways.
func splitSections(src []byte, root ast.Node, auto map[string]bool) ([]Section, string) {
	type cut struct {
		start, bodyStart int
		title, id        string
		line             int
		heading          ast.Node
	}
	var cuts []cut
	bodyStart := 0
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind().String() == "Frontmatter" || n.Kind().String() == "frontmatter" {
			if l := n.Lines(); l.Len() > 0 {
				bodyStart = l.At(l.Len() - 1).Stop
			}
			continue
		}
		h, ok := n.(*ast.Heading)
		if !ok || h.Level != 2 || h.Lines().Len() == 0 {
			continue
		}
		seg := h.Lines().At(0)
		lineStart := bytes.LastIndexByte(src[:seg.Start], '\n') + 1
		lineEnd := bytes.IndexByte(src[seg.Stop:], '\n')
		if lineEnd < 0 {
			lineEnd = len(src)
		} else {
			lineEnd += seg.Stop + 1
		}
		id, _ := h.AttributeString("id")
		idStr, _ := id.([]byte)
		cuts = append(cuts, cut{start: lineStart, bodyStart: lineEnd, title: strings.TrimSpace(string(src[seg.Start:seg.Stop])),
			id: string(idStr), line: bytes.Count(src[:lineStart], []byte("\n")) + 1, heading: h})
	}
	if bodyStart == 0 {
		// The front matter node may not carry lines; find the closing fence.
		if i := bytes.Index(src[3:], []byte("\n---")); i >= 0 {
			bodyStart = 3 + i + 4
			if j := bytes.IndexByte(src[bodyStart:], '\n'); j >= 0 {
				bodyStart += j + 1
			}
		}
	}
	preambleEnd := len(src)
	if len(cuts) > 0 {
		preambleEnd = cuts[0].start
	}
	preamble := ""
	if bodyStart < preambleEnd {
		preamble = strings.TrimSpace(string(src[bodyStart:preambleEnd]))
	}
	sections := make([]Section, 0, len(cuts))
	for i, c := range cuts {
		end := len(src)
		if i+1 < len(cuts) {
			end = cuts[i+1].start
		}
		body := strings.TrimSpace(string(src[c.bodyStart:end]))
		var next ast.Node
		if i+1 < len(cuts) {
			next = cuts[i+1].heading
		}
		part := ast.NewDocument()
		for n := c.heading.NextSibling(); n != nil && n != next; {
			after := n.NextSibling()
			part.AppendChild(part, n) // moves n out of the file's tree
			n = after
		}
		sectionIDs(part, src, auto)
		s := renderTree(part, src)
		s.ID, s.Title, s.Markdown, s.Line = c.id, c.title, body, c.line
		if s.ID == "" {
			s.ID = Slug(c.title)
		}
		sections = append(sections, s)
	}
	sanitizeSections(sections)
	return sections, preamble
}

// sectionCut separates sections' HTML sanitised in one pass. The policy
// keeps it as written (an h6 with an allowed id). Goldmark writes it only
// for an empty "######" heading given this id, and then the cuts do not
// come back one for one.
const sectionCut = `<h6 id="casebook--cut"></h6>`

// joinSanitize is off only in the test that compares both ways.
var joinSanitize = true

// sanitizeSections sanitises the rendered HTML of a file's sections in one
// pass of the sanitiser instead of one per section, each call's tokenizer
// and buffers once per file: at 10,000 incidents the parse allocates 16 %
// fewer bytes, and the sanitiser's CPU fell from about 0.6 s to 0.5 s (the
// rest is its work per byte). Goldmark's HTML for a section is balanced on its own (raw HTML
// is off), so the sanitiser carries no state from one section into the
// next; should the cuts not come back one for one, each section is
// sanitised alone. TestSanitizeSectionsAsAlone holds the two ways equal.
func sanitizeSections(sections []Section) {
	if joinSanitize && len(sections) > 1 {
		n := 0
		for _, s := range sections {
			n += len(s.HTML) + len(sectionCut)
		}
		var b strings.Builder
		b.Grow(n)
		for i, s := range sections {
			if i > 0 {
				b.WriteString(sectionCut)
			}
			b.WriteString(s.HTML)
		}
		parts := strings.Split(policy.Sanitize(b.String()), sectionCut)
		if len(parts) == len(sections) {
			for i := range sections {
				sections[i].HTML = parts[i]
			}
			return
		}
	}
	for i := range sections {
		sections[i].HTML = policy.Sanitize(sections[i].HTML)
	}
}

// sectionIDs gives the headings of a section cut from a file's tree the ids
// a parse of the section alone gives them: the file's parse numbers
// repeated headings across the whole file, a section's own parse only
// within it, and links and triage outcomes point at the latter. An id
// written in the heading ({#id}) stays as it is.
func sectionIDs(part ast.Node, src []byte, auto map[string]bool) {
	own := &ids{seen: map[string]int{}}
	_ = ast.Walk(part, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		v, _ := h.AttributeString("id")
		id, _ := v.([]byte)
		if auto[string(id)] && h.Lines().Len() > 0 {
			// What goldmark's parser generates ids from: the heading's
			// last line.
			last := h.Lines().At(h.Lines().Len() - 1)
			h.SetAttributeString("id", own.Generate(last.Value(src), ast.KindHeading))
		} else if id != nil {
			own.Put(id)
		}
		return ast.WalkContinue, nil
	})
}

// renderSection renders one section body and extracts its plain text, fenced
// commands and sub-headings.
func renderSection(body string) Section {
	src := []byte(body)
	ctx := parser.NewContext(parser.WithIDs(&ids{seen: map[string]int{}}))
	s := renderTree(md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx)), src)
	s.HTML = policy.Sanitize(s.HTML)
	return s
}

// renderTree renders a parsed section (root) of src and extracts its plain
// text, fenced commands and sub-headings. The HTML it returns is goldmark's,
// to be sanitised by the caller.
func renderTree(root ast.Node, src []byte) Section {
	var s Section
	var plain strings.Builder
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Heading:
			id, _ := v.AttributeString("id")
			idb, _ := id.([]byte)
			title := nodeText(v, src)
			s.Anchors = append(s.Anchors, Heading{ID: string(idb), Title: title, Level: v.Level})
		case *ast.FencedCodeBlock:
			var code strings.Builder
			for i := 0; i < v.Lines().Len(); i++ {
				seg := v.Lines().At(i)
				code.Write(seg.Value(src))
			}
			s.Commands = append(s.Commands, strings.TrimRight(code.String(), "\n"))
			plain.WriteString(code.String())
			plain.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			plain.Write(v.Segment.Value(src))
			if v.SoftLineBreak() || v.HardLineBreak() {
				plain.WriteByte(' ')
			}
		case *ast.String:
			plain.Write(v.Value)
		case *ast.CodeSpan:
			plain.WriteString(nodeText(v, src))
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.ListItem:
			plain.WriteByte('\n')
		}
		return ast.WalkContinue, nil
	})
	var out htmlBuffer
	_ = md.Renderer().Render(&out, src, root)
	s.HTML = out.String() // not yet sanitised: see sanitizeSections
	s.Text = strings.TrimSpace(plain.String())
	return s
}

// htmlBuffer is a bytes.Buffer goldmark renders into directly: it is a
// util.BufWriter, so the renderer does not wrap it in a bufio.Writer of its
// own (4 KB for every section rendered, a quarter of a gigabyte of garbage
// in a cold load of 10,000 incidents).
type htmlBuffer struct{ bytes.Buffer }

func (*htmlBuffer) Buffered() int { return 0 }
func (*htmlBuffer) Flush() error  { return nil }

var _ util.BufWriter = (*htmlBuffer)(nil)

// nodeText concatenates the text under n.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(src))
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// RenderMarkdown renders a snippet (a trigger line, a diagnosis) to sanitised
// HTML with the same rules as library content.
func RenderMarkdown(s string) string { return renderSection(s).HTML }
