package triage

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"casebook/internal/library"
)

// teamLayer is the acme fixture layer of the library tests: a tree of its
// own, an answer added to the public chooser, a note on a public route and
// a signal.
const teamLayer = "../library/testdata/layers/acme"

func layerFS(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(dir + "/" + p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoadLayers(t *testing.T) {
	layers := []library.Layer{{FS: os.DirFS(libraryRoot), Root: "library", Embedded: true}, {FS: layerFS(t, teamLayer), Root: "acme"}}
	c, problems := LoadLayers(layers)
	for _, p := range problems {
		t.Errorf("load: %s", p)
	}
	anchors := playbookAnchors(t)
	anchors["acme-gateway"] = []string{"detect", "scope", "mitigate", "root-cause", "verify", "record"}
	for _, p := range c.Lint(anchors) {
		t.Errorf("lint: %s", p)
	}
	root, _ := c.Node("symptom")
	if ch, ok := root.Choice("acme-gateway"); !ok || ch.Next != "acme-gateway-start" {
		t.Errorf("the team's answer is not on the public chooser: %+v", root.Choices)
	}
	if _, ok := c.Route("acme/gateway-drained-pool"); !ok {
		t.Error("the team's route has no outcome")
	}
	n, _ := c.Route("gpu/driver")
	want := []Note{{Layer: "acme", Text: "Driver versions are pinned in infra/gpu/versions.yaml; page #gpu-infra before rolling back.",
		TextKo: "드라이버 버전은 infra/gpu/versions.yaml에 고정되어 있습니다. 롤백 전에 #gpu-infra를 호출합니다.", Commands: []string{"acmectl gpu driver-pins"}}}
	if diff := cmp.Diff(want, n.Outcome.Notes, cmpopts.IgnoreFields(Note{}, "Path", "Line")); diff != "" {
		t.Errorf("gpu/driver notes (-want +got):\n%s", diff)
	}
	res := c.Classify("2026-12-01T10:00:00Z acme-gateway: no healthy backend in pool west-2")
	if len(res.Routes) == 0 || res.Routes[0].Route != "acme/gateway-drained-pool" {
		t.Errorf("the team's signal does not route its log line: %+v", res.Routes)
	}
}

// TestLoadLayersConflicts: ids are unique across layers, and lint names
// both files.
func TestLoadLayersConflicts(t *testing.T) {
	team := layerFS(t, teamLayer)
	team["triage/signals.yaml"].Data = []byte(strings.Replace(string(team["triage/signals.yaml"].Data), "id: acme-gateway-no-backend", "id: sched-taint-control-plane", 1))
	team["triage/extend.yaml"].Data = append(team["triage/extend.yaml"].Data, []byte("  - route: gpu/nonexistent\n    note: x\n")...)
	src := string(team["triage/acme-gateway.yaml"].Data)
	team["triage/acme-gateway.yaml"].Data = []byte(strings.Replace(src, "  - id: acme-out-overloaded", "  - id: symptom", 1))
	c, problems := LoadLayers([]library.Layer{{FS: os.DirFS(libraryRoot), Root: "library"}, {FS: team, Root: "acme"}})
	anchors := playbookAnchors(t)
	anchors["acme-gateway"] = []string{"detect", "scope", "mitigate", "root-cause", "verify", "record"}
	var got []string
	for _, p := range append(problems, c.Lint(anchors)...) {
		got = append(got, p.String())
	}
	for _, want := range []string{
		`acme/triage/extend.yaml:13: outcome note: route "gpu/nonexistent" has no outcome in any layer`,
		`acme/triage/acme-gateway.yaml:34: node id "symptom" already used at library/triage/root.yaml:`,
		`acme/triage/signals.yaml:3: signal id "sched-taint-control-plane" already used at library/triage/signals.yaml:`,
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no problem %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
}
