package library

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Cause C: untolerated taint", "cause-c-untolerated-taint"},
		{"Root cause", "root-cause"},
		{"Follow-ups", "follow-ups"},
		{"  --Leading & trailing!!  ", "leading-trailing"},
		{"GPU (H100) 80GB / node", "gpu-h100-80gb-node"},
		{"원인 B: 드라이버 버전 불일치", "원인-b-드라이버-버전-불일치"},
		{"노드 NotReady", "노드-notready"},
		{"Ärger mit Überhitzung", "ärger-mit-überhitzung"},
		{"Linode (Akamai)", "linode-akamai"},
		{"!!!", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlaybookAnchors(t *testing.T) {
	lib, _, err := Load(dirFS(t, "testdata/good"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		want []string
	}{
		{"gpu-missing", []string{"detect", "scope", "mitigate", "cause-a-driver-not-loaded", "원인-b-드라이버-버전-불일치", "root-cause", "verify", "record"}},
		// Two sub-headings with the same text get distinct anchors.
		{"pod-pending", []string{"detect", "scope", "mitigate", "notes", "notes-1", "root-cause", "verify", "record"}},
	}
	for _, tt := range tests {
		pb, _ := lib.Playbook(tt.id)
		if diff := cmp.Diff(tt.want, pb.Anchors()); diff != "" {
			t.Errorf("%s anchors (-want +got):\n%s", tt.id, diff)
		}
	}
	pb, _ := lib.Playbook("gpu-missing")
	if got := pb.HeadingTitle("원인-b-드라이버-버전-불일치"); got != "원인 B: 드라이버 버전 불일치" {
		t.Errorf("HeadingTitle of the Korean anchor = %q", got)
	}
	want := []string{`kubectl get nodes -o custom-columns=NAME:.metadata.name,GPU:.status.allocatable.nvidia\.com/gpu`}
	if diff := cmp.Diff(want, pb.Sections[0].Commands); diff != "" {
		t.Errorf("Detect commands (-want +got):\n%s", diff)
	}
}

// TestRenderedPlaybooks keeps the sanitised HTML of the fixture playbooks as
// golden files, so a change to the Markdown pipeline shows up as a diff.
func TestRenderedPlaybooks(t *testing.T) {
	lib, _, err := Load(dirFS(t, "testdata/good"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pb := range lib.Playbooks {
		var b strings.Builder
		for _, s := range pb.Sections {
			fmt.Fprintf(&b, "<!-- section %s, line %d -->\n%s\n", s.ID, s.Line, s.HTML)
		}
		golden(t, "render/"+pb.ID+".golden.html", b.String())
		assertSafeHTML(t, b.String())
	}
}

// TestRawHTMLNotRendered feeds Markdown that tries to run script through
// every route we know of; none may survive into the page.
func TestRawHTMLNotRendered(t *testing.T) {
	tests := []struct {
		name, md string
		keep     string // text that must still be shown
	}{
		{"script block", "<script>alert(1)</script>\n\nafter", "after"},
		{"inline script", "text <script>alert(1)</script> more", "text"},
		{"event handler", `<div onclick="steal()">x</div>` + "\n\nok", "ok"},
		{"img onerror", `see <img src="x" onerror="steal()"> here`, "here"},
		{"javascript link", "[click](javascript:alert(1))", "click"},
		{"javascript link upper case", "[click](JAVASCRIPT:alert(1))", "click"},
		{"javascript autolink in raw anchor", `<a href="javascript:alert(1)">click</a>`, ""},
		{"iframe", `<iframe src="https://evil.example"></iframe>` + "\n\nok", "ok"},
		{"style", "<style>body{display:none}</style>\n\nok", "ok"},
		{"data uri link", "[x](data:text/html;base64,PHNjcmlwdD4=)", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderMarkdown(tt.md)
			assertSafeHTML(t, got)
			if !strings.Contains(got, tt.keep) {
				t.Errorf("text %q lost: %s", tt.keep, got)
			}
		})
	}
	got := RenderMarkdown("[docs](https://kubernetes.io/docs/)")
	if !strings.Contains(got, `href="https://kubernetes.io/docs/"`) {
		t.Errorf("a safe link was not kept: %s", got)
	}
}

func assertSafeHTML(t *testing.T, html string) {
	t.Helper()
	lower := strings.ToLower(html)
	for _, bad := range []string{"<script", "javascript:", "onclick", "onerror", "<iframe", "<style", "data:text/html", "<img"} {
		if strings.Contains(lower, bad) {
			t.Errorf("rendered HTML contains %q:\n%s", bad, html)
		}
	}
}

// TestSectionsRenderAsParsedAlone checks that a section rendered from the
// file's syntax tree is the section parsed on its own, as sections were
// rendered before: above all the ids of repeated sub-headings, which the
// file's parse numbers across the file and links point at per section.
func TestSectionsRenderAsParsedAlone(t *testing.T) {
	for name, body := range map[string]string{
		"same sub-heading in two sections":         "## Check A\n\n### Check\n\nOne.\n\n## Check B\n\n### Check\n\nTwo.\n\n### Check\n",
		"sub-heading named as its section":         "## Detection\n\n### Detection\n\nAlerts.\n",
		"sub-heading before a section of its name": "## Setup steps\n\n### Setup\n\n## Setup\n\nText.\n\n### Setup\n",
		"written ids": "## A {#first}\n\n### Run {#run}\n\n### Run\n\n## B\n\n### Run\n\n### first\n",
		"code, lists, tables and links": "## Commands\n\n```sh\n## not a heading\nkubectl get pods -A\n```\n\n" +
			"- one `code`\n- two [link](https://example.com)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## After\n\nText with **bold**.\n",
		"Korean headings": "## 원인\n\n### 확인\n\n내용.\n\n## 조치\n\n### 확인\n",
		"empty sections":  "## A\n## B\n\n## C\n",
	} {
		src := []byte("---\nid: X\n---\n\n" + body)
		doc, p := parseDocument("x.md", src)
		if p != nil {
			t.Fatalf("%s: %v", name, p)
		}
		if len(doc.sections) == 0 {
			t.Fatalf("%s: no sections", name)
		}
		for _, got := range doc.sections {
			want := renderSection(got.Markdown)
			want.ID, want.Title, want.Markdown, want.Line = got.ID, got.Title, got.Markdown, got.Line
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: section %s (-parsed alone +from the file's tree):\n%s", name, got.ID, diff)
			}
		}
	}
}

// TestSanitizeSectionsAsAlone checks that sanitising a file's sections in one
// pass gives each section the HTML it gets sanitised alone: on every file of
// the shipped library, and on bodies made to trip the one pass up (the cut's
// own markup written as a heading, links and images the policy strips).
func TestSanitizeSectionsAsAlone(t *testing.T) {
	files := map[string][]byte{}
	for name, body := range map[string]string{
		"the cut written as a heading": "## A\n\n###### {#casebook--cut}\n\nText.\n\n## B\n\nMore.\n",
		"the cut's id with text":       "## A\n\n###### Cut {#casebook--cut}\n\n## B\n\n<h6 id=\"casebook--cut\"></h6>\n",
		"unsafe and stripped markup": "## A\n\n[x](javascript:alert(1)) ![img](https://example.com/a.png)\n\n" +
			"- [ ] task\n- [x] done\n\n## B\n\n<script>alert(1)\n\n## C\n\n<a href=\"https://example.com\">raw</a> ~~gone~~\n",
		"empty heading and sections": "## A\n\n######\n\n## B\n## C\n",
	} {
		files[name] = []byte("---\nid: X\n---\n\n" + body)
	}
	shipped := os.DirFS("../../library")
	err := fs.WalkDir(shipped, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		src, err := fs.ReadFile(shipped, path)
		files[path] = src
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	parse := func(path string, src []byte, joined bool) []Section {
		joinSanitize = joined
		defer func() { joinSanitize = true }()
		doc, p := parseDocument(path, src)
		if p != nil {
			return nil // not a document with front matter (a README)
		}
		return doc.sections
	}
	sections := 0
	for path, src := range files {
		got, want := parse(path, src, true), parse(path, src, false)
		sections += len(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-sanitised alone +in one pass):\n%s", path, diff)
		}
	}
	if sections < 1000 {
		t.Errorf("compared %d sections; the shipped library has thousands", sections)
	}
}
