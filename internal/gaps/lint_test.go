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
		"incidents: [IL-0001, IL-9999]\nplaybooks: [memory#no-such-heading, nope]\nfix: f\n")}
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
