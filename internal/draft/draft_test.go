package draft

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/triage"
)

var acme = library.LayerInfo{Name: "acme", Prefix: "ACME", Organization: "ACME Corp"}

func TestCommon(t *testing.T) {
	got := Common([][]string{{"a", "b"}, {"b", "c"}, {"b", "a"}, {"d"}}, 3)
	if strings.Join(got, ",") != "b,a" {
		t.Errorf("Common = %v, want b then a (c and d are on fewer than half)", got)
	}
}

func TestNextID(t *testing.T) {
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{nil, "ACME-0001"},
		{[]string{"ACME-0001", "incidents/ACME-0041-x.md", "ACME-0007", "IL-0099", "ACMEX-0500"}, "ACME-0042"},
		{[]string{"ACME-9999"}, "ACME-10000"},
	} {
		if got := NextID(acme, tc.ids); got != tc.want {
			t.Errorf("NextID(%v) = %s, want %s", tc.ids, got, tc.want)
		}
	}
}

// TestDraftLintsCleanButTODO: a draft from a wizard outcome, put in a
// team's layer on top of the shipped library, has no problem but its TODO
// placeholders, and each of those says what to write.
func TestDraftLintsCleanButTODO(t *testing.T) {
	public := library.Layer{FS: os.DirFS("../../library"), Root: "library", Embedded: true}
	cat, _ := triage.LoadLayers([]library.Layer{public})
	lib, _, err := library.NewStack(public).Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{"gpu/driver", "pending/untolerated-taint", "network/dns", "llm/latency"} {
		t.Run(route, func(t *testing.T) {
			n, ok := cat.Route(route)
			if !ok {
				t.Fatalf("no route %s", route)
			}
			pb, _ := lib.Playbook(n.Outcome.Playbook)
			var comps, syms [][]string
			for _, x := range lib.Incidents {
				if slices.Contains(x.Routes, route) {
					comps, syms = append(comps, x.Components), append(syms, x.Symptoms)
				}
			}
			in := Input{Layer: acme, ID: "ACME-0003", Today: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), Outcome: n.Outcome, Playbook: pb,
				Taxonomy: lib.Taxonomy, Components: Common(comps, 3), Symptoms: Common(syms, 2)}
			if len(in.Symptoms) == 0 {
				t.Errorf("the incidents of %s share no symptom", route)
			}
			problems := lintDraft(t, public, in)
			todos := 0
			for _, p := range problems {
				if !p.Todo {
					t.Errorf("not a TODO: %s", p)
					continue
				}
				todos++
				if !strings.HasPrefix(p.Msg, "TODO: ") {
					t.Errorf("a TODO problem that does not say so: %s", p)
				}
			}
			// title, title_ko, summary, summary_ko, causes, sources and the
			// sections a person writes.
			if todos < 10 {
				t.Errorf("%d TODO problems, want every placeholder reported:\n%s", todos, problemText(problems))
			}
			if !strings.HasSuffix(Path(in), "/ACME-0003-"+strings.ReplaceAll(route, "/", "-")+".md") {
				t.Errorf("Path = %s", Path(in))
			}
		})
	}
	// Without an outcome (casebook new incident) and with a title.
	in := Input{Layer: acme, ID: "ACME-0004", Today: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Title: "Gateway sent traffic to a drained pool"}
	problems := lintDraft(t, public, in)
	for _, p := range problems {
		if !p.Todo || strings.Contains(p.Msg, `"title"`) {
			t.Errorf("unexpected: %s", p)
		}
	}
	if Path(in) != "incidents/ACME-0004-gateway-sent-traffic-to-a-drained-pool.md" {
		t.Errorf("Path = %s", Path(in))
	}
}

func lintDraft(t *testing.T, public library.Layer, in Input) []library.Problem {
	t.Helper()
	team := fstest.MapFS{
		"layer.yaml": {Data: []byte("name: acme\nprefix: ACME\norganization: ACME Corp\n")},
		Path(in):     {Data: []byte(Markdown(in))},
	}
	problems, err := content.LintStack(library.NewStack(public, library.Layer{FS: team, Root: "acme"}))
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

func problemText(ps []library.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}
