package gaps

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	lib "casebook/internal/library"
	"casebook/library"
)

// The shipped checks compile, and there are at least 15 of them.
func TestShippedChecksCompile(t *testing.T) {
	set, problems := Load(library.FS)
	for _, p := range problems {
		t.Error(p)
	}
	if len(set.Checks) < 15 {
		t.Errorf("%d checks, want at least 15", len(set.Checks))
	}
	for _, p := range set.KoProblems() {
		t.Error(p)
	}
}

func TestLintRejects(t *testing.T) {
	base := "id: x\ntitle: T\nseverity: high\nkinds: [nodes]\neach: nodes\ncondition: object.name == \"a\"\nmessage: m\nincidents: [IL-0001]\nfix: f\n"
	tests := []struct{ name, src, want string }{
		{"unknown field", base + "typo: 1\n", `unknown field "typo"`},
		{"unknown kind", strings.Replace(base, "kinds: [nodes]", "kinds: [nodes, secrets]", 1), `unknown kind "secrets"`},
		{"unknown each", strings.Replace(base, "each: nodes", "each: gadgets", 1), `unknown kind "gadgets"`},
		{"field the snapshot never carries", strings.Replace(base, "object.name", "object.secretData", 1), "undefined field 'secretData'"},
		{"wrong type", strings.Replace(base, `object.name == "a"`, "object.name", 1), "condition is a string, want a bool"},
		{"kind not declared", strings.Replace(base, `object.name == "a"`, "inventory.pods.size() > 0", 1), "reads pods, which is not among kinds"},
		{"no incident", strings.Replace(base, "incidents: [IL-0001]\n", "", 1), "must cite at least one incident"},
		{"bad severity", strings.Replace(base, "severity: high", "severity: urgent", 1), `severity "urgent"`},
		{"placeholder", strings.Replace(base, "message: m", "message: '{nodes}'", 1), "only {count} and {objects}"},
		{"id and file", strings.Replace(base, "id: x", "id: y", 1), `does not match the file name`},
		{"whole without objects", strings.Replace(base, "each: nodes\n", "", 1), "must say which objects"},
		{"syntax", strings.Replace(base, `object.name == "a"`, `object.name ==`, 1), "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"checks/x.yaml": {Data: []byte(tt.src)}}
			_, problems := Load(fsys)
			var all []string
			for _, p := range problems {
				all = append(all, p.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Fatalf("problems %q, want one mentioning %q", all, tt.want)
			}
			if !strings.HasPrefix(all[0], "checks/x.yaml:") {
				t.Errorf("problem %q has no path:line", all[0])
			}
		})
	}
}

// Lint with the library checks what a check cites: incidents, playbooks
// and playbook sections that exist.
func TestLintReferences(t *testing.T) {
	fsys := fstest.MapFS{}
	err := fs.WalkDir(library.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(library.FS, p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	loaded, _, err := lib.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if ps := Lint(fsys, loaded); len(ps) > 0 {
		t.Fatalf("shipped checks: %v", ps)
	}
	fsys["checks/x.yaml"] = &fstest.MapFile{Data: []byte("id: x\ntitle: T\nseverity: low\nkinds: [nodes]\neach: nodes\ncondition: 'true'\nmessage: m\n" +
		"incidents: [IL-0001, IL-9999]\nplaybooks: [memory#no-such-heading, nope]\nfix: f\ntitle_ko: 티\nmessage_ko: 엠\nfix_ko: 에프\n")}
	var got []string
	for _, p := range Lint(fsys, loaded) {
		got = append(got, p.String())
	}
	want := []string{
		"checks/x.yaml:8: cites incident IL-9999, which is not in the library",
		"checks/x.yaml:9: names section #no-such-heading of playbook memory, which has no such heading",
		"checks/x.yaml:9: names playbook nope, which is not in the library",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every check carries its Korean title, message and fix, and the Korean
// message fills in the same placeholders as the English one.
func TestLintKoreanTwins(t *testing.T) {
	base := "id: %s\ntitle: T\nseverity: low\nkinds: [nodes]\neach: nodes\ncondition: 'true'\nmessage: '{count} nodes: {objects}'\nincidents: [IL-0001]\nfix: f\n"
	check := func(id, extra string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(strings.ReplaceAll(base, "%s", id) + extra)}
	}
	fsys := fstest.MapFS{
		"checks/complete.yaml":     check("complete", "title_ko: 티\nmessage_ko: '노드 {count}대: {objects}'\nfix_ko: 에프\n"),
		"checks/english-only.yaml": check("english-only", ""),
		"checks/no-fix.yaml":       check("no-fix", "title_ko: 티\nmessage_ko: '노드 {count}대: {objects}'\n"),
		"checks/lost-objects.yaml": check("lost-objects", "title_ko: 티\nmessage_ko: '노드 {count}대'\nfix_ko: 에프\n"),
		"checks/typo.yaml":         check("typo", "title_ko: 티\nmessage_ko: '노드 {count}대: {object}'\nfix_ko: 에프\n"),
	}
	set, problems := Load(fsys)
	for _, p := range problems {
		t.Errorf("load: %s", p)
	}
	var got []string
	for _, p := range set.KoProblems() {
		got = append(got, p.String())
	}
	want := []string{
		"checks/english-only.yaml:2: check english-only: title has no title_ko",
		"checks/english-only.yaml:7: check english-only: message has no message_ko",
		"checks/english-only.yaml:9: check english-only: fix has no fix_ko",
		"checks/lost-objects.yaml:11: check lost-objects: message_ko has placeholders {count}, message has {count} {objects}",
		"checks/no-fix.yaml:9: check no-fix: fix has no fix_ko",
		"checks/typo.yaml:11: check typo: message_ko has placeholders {count} {object}, message has {count} {objects}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
