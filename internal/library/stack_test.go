package library

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// stackOf is the good fixture library as the public layer with the acme
// fixture layer on top, shown under the roots lint would use.
func stackOf(t *testing.T, team fstest.MapFS) *Stack {
	t.Helper()
	return NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: team, Root: "acme"})
}

func loadStack(t *testing.T, s *Stack) (*Library, []string) {
	t.Helper()
	lib, problems, err := s.Load()
	if err != nil {
		t.Fatalf("Load: %v\n%s", err, strings.Join(problemStrings(problems), "\n"))
	}
	return lib, problemStrings(problems)
}

func TestStackMerge(t *testing.T) {
	lib, problems := loadStack(t, stackOf(t, dirFS(t, "testdata/layers/acme")))
	if len(problems) > 0 {
		t.Errorf("problems:\n%s", strings.Join(problems, "\n"))
	}
	var ids []string
	for _, in := range lib.Incidents {
		ids = append(ids, in.ID+"@"+in.Layer)
	}
	want := []string{"ACME-0002@acme", "ACME-0001@acme", "IL-9001@public", "IL-9002@public", "IL-9003@public", "IL-9004@public"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("incidents of both layers, newest first (-want +got):\n%s", diff)
	}
	if got := lib.Layers; len(got) != 2 || got[0].Name != PublicLayer || got[1].Name != "acme" || got[1].Prefix != "ACME" {
		t.Errorf("Layers = %+v, want public then acme", got)
	}

	// The team's pod-pending replaces the public one and says so.
	pb, _ := lib.Playbook("pod-pending")
	if pb.Layer != "acme" || pb.Title != "Pod stuck in Pending (ACME)" {
		t.Errorf("pod-pending comes from %q (%q), want the team's override", pb.Layer, pb.Title)
	}
	if diff := cmp.Diff(&Override{Layer: PublicLayer, Path: "playbooks/pod-pending.md"}, pb.Overrides); diff != "" {
		t.Errorf("Overrides (-want +got):\n%s", diff)
	}
	if pb.Ko != nil {
		t.Error("the override carries the public playbook's Korean text, which no longer matches it")
	}
	if gm, _ := lib.Playbook("gpu-missing"); gm.Layer != PublicLayer || gm.Overrides != nil {
		t.Errorf("gpu-missing: layer %q overrides %v, want the public one untouched", gm.Layer, gm.Overrides)
	}
	if n := len(lib.Playbooks); n != 3 {
		t.Errorf("%d playbooks, want 3 (gpu-missing, pod-pending once, acme-gateway)", n)
	}

	// One taxonomy: the team's terms beside the public ones, and its
	// aliases on a public term.
	if term, ok := lib.Taxonomy.Term(FacetComponent, "inference-gateway"); !ok || term.Layer != "acme" {
		t.Errorf("team component: %+v %v", term, ok)
	}
	drv, _ := lib.Taxonomy.Term(FacetComponent, "gpu-driver")
	if drv.Label != "GPU driver" || !slices.Contains(drv.Aliases, "nvidia driver") || !slices.Contains(drv.Aliases, "엔비디아 드라이버") {
		t.Errorf("gpu-driver after the team's aliases: %+v", drv)
	}
	if c, _ := lib.Taxonomy.Term(FacetCause, "gateway-misroute"); c == nil || c.Category != "deployment-defect" {
		t.Errorf("team cause in a public category: %+v", c)
	}

	// Provenance: the layer's edit URL with the file's path.
	in, _ := lib.Incident("ACME-0001")
	if want := "https://git.example.com/acme/casebook/-/edit/main/library/incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md"; in.EditURL != want {
		t.Errorf("EditURL = %q, want %q", in.EditURL, want)
	}
	if pub, _ := lib.Incident("IL-9001"); pub.EditURL != "" {
		t.Errorf("public incident without an edit URL template got %q", pub.EditURL)
	}
}

func TestStackProblems(t *testing.T) {
	tests := []struct {
		name string
		edit func(fstest.MapFS)
		want []string
	}{{
		name: "team redefines a public term",
		edit: func(f fstest.MapFS) {
			f["taxonomy.yaml"].Data = append(f["taxonomy.yaml"].Data, []byte("  - id: kube-scheduler\n    label: Our scheduler\n    aliases: [sched]\n")...)
		},
		want: []string{`acme/taxonomy.yaml:19: component "kube-scheduler" is defined in good/taxonomy.yaml:60; a layer may add aliases to a term, never redefine it (remove label)`},
	}, {
		name: "team incident with a public id",
		edit: func(f fstest.MapFS) {
			f["incidents/IL-0042-x.md"] = &fstest.MapFile{Data: []byte(strings.Replace(string(f["incidents/ACME-0002-driver-upgrade-stalled.md"].Data), "ACME-0002", "IL-0042", 1))}
		},
		want: []string{`acme/incidents/IL-0042-x.md:2: id "IL-0042" must look like ACME-0042: incidents of layer acme use its prefix ACME (layer.yaml)`},
	}, {
		name: "unknown term names the nearest of either layer",
		edit: func(f fstest.MapFS) {
			src := string(f["incidents/ACME-0002-driver-upgrade-stalled.md"].Data)
			f["incidents/ACME-0002-driver-upgrade-stalled.md"].Data = []byte(strings.Replace(src, "components: [gpu-driver]", "components: [inference-gatway]", 1))
		},
		want: []string{`acme/incidents/ACME-0002-driver-upgrade-stalled.md:8: unknown Component "inference-gatway" in components (did you mean "inference-gateway"?)`},
	}, {
		name: "link to a playbook of no layer",
		edit: func(f fstest.MapFS) {
			src := string(f["incidents/ACME-0002-driver-upgrade-stalled.md"].Data)
			f["incidents/ACME-0002-driver-upgrade-stalled.md"].Data = []byte(strings.Replace(src, "acme-gateway]", "acme-gatewy]", 1))
		},
		want: []string{`acme/incidents/ACME-0002-driver-upgrade-stalled.md:17: links to playbook "acme-gatewy", which does not exist (did you mean "acme-gateway"?)`},
	}, {
		name: "override without the headings others link to",
		edit: func(f fstest.MapFS) {
			f["playbooks/pod-pending.md"].Data = []byte(strings.Replace(string(f["playbooks/pod-pending.md"].Data), "### Notes", "### Our notes", 1))
		},
		want: []string{`acme/playbooks/pod-pending.md:1: replaces good/playbooks/pod-pending.md but lacks its headings #notes-1: triage outcomes, checks and links point at them; keep those headings (or give yours their {#anchor})`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			team := dirFS(t, "testdata/layers/acme")
			tc.edit(team)
			_, problems := loadStack(t, stackOf(t, team))
			if diff := cmp.Diff(tc.want, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStackTwoTeams: two layers with one prefix collide on ids; lint names
// both files.
func TestStackTwoTeams(t *testing.T) {
	other := dirFS(t, "testdata/layers/acme")
	other["layer.yaml"].Data = []byte("name: acme-ml\nprefix: ACME\n")
	delete(other, "taxonomy.yaml")
	delete(other, "incidents/ACME-0002-driver-upgrade-stalled.md")
	delete(other, "playbooks/acme-gateway.md")
	s := NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: dirFS(t, "testdata/layers/acme"), Root: "acme"}, Layer{FS: other, Root: "ml"})
	lib, problems := loadStack(t, s)
	want := []string{
		`ml/incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md:2: duplicate incident id ACME-0001 (also in acme/incidents/ACME-0001-gateway-sent-traffic-to-drained-pool.md)`,
		`ml/layer.yaml:2: prefix ACME is also the prefix of acme/layer.yaml: two layers with one prefix would give two incidents one id`,
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if in, _ := lib.Incident("ACME-0001"); in.Layer != "acme" {
		t.Errorf("ACME-0001 from %q, want the first layer's", in.Layer)
	}
	if pb, _ := lib.Playbook("pod-pending"); pb.Layer != "acme-ml" || pb.Overrides.Layer != "acme" {
		t.Errorf("pod-pending overridden twice: from %q over %+v", pb.Layer, pb.Overrides)
	}
}

// TestStackBrokenLayer: a team layer that cannot be used leaves the public
// library serving; once it loaded, its previous version keeps serving.
func TestStackBrokenLayer(t *testing.T) {
	team := dirFS(t, "testdata/layers/acme")
	team["taxonomy.yaml"] = &fstest.MapFile{Data: []byte("causes: [\n")}
	lib, problems := loadStack(t, stackOf(t, team))
	if _, ok := lib.Incident("IL-9001"); !ok || len(lib.Incidents) != 4 {
		t.Errorf("%d incidents, want the 4 public ones", len(lib.Incidents))
	}
	if !strings.Contains(strings.Join(problems, "\n"), "acme/layer.yaml: this layer is unusable and left out") ||
		!slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, "acme/taxonomy.yaml:2: malformed YAML") }) {
		t.Errorf("problems do not say why the layer is out:\n%s", strings.Join(problems, "\n"))
	}

	team = dirFS(t, "testdata/layers/acme")
	s := stackOf(t, team)
	loadStack(t, s)
	team["layer.yaml"].Data = []byte("name: [acme\n")
	lib, problems = loadStack(t, s)
	if in, ok := lib.Incident("ACME-0001"); !ok || in.Layer != "acme" {
		t.Error("the team's previous version stopped serving")
	}
	if !strings.Contains(strings.Join(problems, "\n"), "its previous version keeps serving until it is fixed") {
		t.Errorf("problems do not say the previous version serves:\n%s", strings.Join(problems, "\n"))
	}
	// A folder without layer.yaml on top would be a second public library.
	delete(team, "layer.yaml")
	_, ps, err := NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: team, Root: "acme"}).Load()
	if err != nil || !strings.Contains(strings.Join(problemStrings(ps), "\n"), "acme: this folder has no layer.yaml") {
		t.Errorf("err %v, problems:\n%s", err, strings.Join(problemStrings(ps), "\n"))
	}
}

// TestStackReusesUnchangedLayers: a change in the team layer re-parses it
// and not the public library.
func TestStackReusesUnchangedLayers(t *testing.T) {
	team := dirFS(t, "testdata/layers/acme")
	s := stackOf(t, team)
	first, _ := loadStack(t, s)
	team["incidents/ACME-0002-driver-upgrade-stalled.md"].Data = []byte(strings.Replace(string(team["incidents/ACME-0002-driver-upgrade-stalled.md"].Data), "Jobs waited.", "Jobs waited for hours.", 1))
	second, _ := loadStack(t, s)
	if first.Hash == second.Hash {
		t.Error("the hash did not change with the team's file")
	}
	a, _ := first.Incident("IL-9001")
	b, _ := second.Incident("IL-9001")
	if a.FullSections()[0].HTML != b.FullSections()[0].HTML || a.Body.c != b.Body.c {
		t.Error("the public layer was parsed again although it did not change")
	}
	if in, _ := second.Incident("ACME-0002"); !strings.Contains(in.FullSections()[0].Markdown, "for hours") {
		t.Error("the team's change is not in the new library")
	}
}

func TestLayerInfoProblems(t *testing.T) {
	tests := []struct{ src, want string }{
		{"name: public\nprefix: ACME\n", `layer.yaml:1: layer name "public" is the public library's; name the team's layer (e.g. acme)`},
		{"name: acme\nprefix: IL\n", `layer.yaml:2: prefix IL is the public library's: a team's ids must never collide with IL- ids; choose another (e.g. ACME)`},
		{"name: acme\nprefix: acme\n", `layer.yaml:2: prefix "acme" must be 2 to 10 upper-case letters or digits, starting with a letter (e.g. ACME)`},
		{"name: acme\nprefix: ACME\nedit_url: https://git.example.com/x/-/edit/main\n", `layer.yaml:3: edit_url "https://git.example.com/x/-/edit/main" has no {path}: it is a template such as https://git.example.com/team/casebook/-/edit/main/library/{path}`},
		{"name: acme\nprefix: ACME\nowner: me\n", `layer.yaml:3: unknown field "owner"`},
	}
	for _, tc := range tests {
		_, ps, _ := parseLayerInfo(LayerFile, []byte(tc.src))
		if got := problemStrings(ps); len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%q: problems %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestDraftTODOs: placeholders a person must fill are reported as TODO
// problems, one per field or line, and nothing else.
func TestDraftTODOs(t *testing.T) {
	team := dirFS(t, "testdata/layers/acme")
	team["incidents/ACME-0003-draft.md"] = &fstest.MapFile{Data: []byte(`---
id: ACME-0003
title: "TODO: one line - what broke"
summary: TODO one sentence
organization: ACME Corp
date: 2026-12-01
domains: [kubernetes]
components: [kube-scheduler]
causes: [TODO]
symptoms: [pod-pending]
sources:
  - url: TODO link to the postmortem
    title: TODO
    kind: postmortem
    retrieved: 2026-12-01
title_ko: TODO
summary_ko: TODO
---

## Symptom
TODO: what users saw.

## Trigger
A pool drain.

## Detection
TODO

## Response
- 10:02 - rolled back

## Follow-ups
- TODO: owner, action, due date

## Lessons
TODO
`)}
	_, problems := loadStack(t, stackOf(t, team))
	want := []string{
		`acme/incidents/ACME-0003-draft.md:3: TODO: fill in "title"`,
		`acme/incidents/ACME-0003-draft.md:4: TODO: fill in "summary"`,
		`acme/incidents/ACME-0003-draft.md:9: TODO: fill in "causes" with ids from the taxonomy (casebook lint suggests the nearest id for a typo)`,
		`acme/incidents/ACME-0003-draft.md:12: TODO: fill in "sources": the URL and title of the postmortem document you wrote or read`,
		`acme/incidents/ACME-0003-draft.md:16: TODO: fill in "title_ko" in Korean`,
		`acme/incidents/ACME-0003-draft.md:17: TODO: fill in "summary_ko" in Korean`,
		`acme/incidents/ACME-0003-draft.md:21: TODO: write section "Symptom": TODO: what users saw.`,
		`acme/incidents/ACME-0003-draft.md:27: TODO: write section "Detection": TODO`,
		`acme/incidents/ACME-0003-draft.md:33: TODO: write section "Follow-ups": TODO: owner, action, due date`,
		`acme/incidents/ACME-0003-draft.md:36: TODO: write section "Lessons": TODO`,
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestProvenanceTimes(t *testing.T) {
	dir := t.TempDir() // not in a Git work tree: file times stand in
	if err := os.CopyFS(dir, os.DirFS("testdata/layers/acme")); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2026, 9, 1, 8, 30, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(dir, "incidents", "ACME-0001-gateway-sent-traffic-to-drained-pool.md"), mod, mod); err != nil {
		t.Fatal(err)
	}
	lib, _ := loadStack(t, NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good", Embedded: true}, Layer{FS: os.DirFS(dir), Root: "acme", Dir: dir}))
	in, _ := lib.Incident("ACME-0001")
	if in.Changed != "2026-09-01T08:30:00Z" || in.ChangedFrom != ChangedFile {
		t.Errorf("file time: Changed %q from %q", in.Changed, in.ChangedFrom)
	}
	if pub, _ := lib.Incident("IL-9001"); pub.Changed != "" || pub.ChangedFrom != "" {
		t.Errorf("embedded layer claims a change time: %q from %q", pub.Changed, pub.ChangedFrom)
	}
}

// TestProvenanceGit reads the last commit of each file from a real Git
// repository.
func TestProvenanceGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI needs it for this test")
		}
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	layerDir := filepath.Join(repo, "library")
	if err := os.CopyFS(layerDir, os.DirFS("testdata/layers/acme")); err != nil {
		t.Fatal(err)
	}
	git := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("2026-01-01T00:00:00Z", "init", "-q")
	git("2026-01-02T10:00:00Z", "add", ".")
	git("2026-01-02T10:00:00Z", "commit", "-q", "-m", "first")
	p := filepath.Join(layerDir, "playbooks", "acme-gateway.md")
	src, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(src, []byte("\nMore.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	git("2026-03-04T05:06:07Z", "commit", "-q", "-am", "second")

	s := NewStack(Layer{FS: dirFS(t, "testdata/good"), Root: "good"}, Layer{FS: os.DirFS(layerDir), Root: "acme", Dir: layerDir})
	lib, _ := loadStack(t, s)
	pb, _ := lib.Playbook("acme-gateway")
	in, _ := lib.Incident("ACME-0001")
	if pb.Changed != "2026-03-04T05:06:07Z" || pb.ChangedFrom != ChangedGit || in.Changed != "2026-01-02T10:00:00Z" || in.ChangedFrom != ChangedGit {
		t.Errorf("git times: playbook %q (%s), incident %q (%s)", pb.Changed, pb.ChangedFrom, in.Changed, in.ChangedFrom)
	}
}

// A stack without a team's layer is the library as if the layer were not
// loaded: none of its incidents, its playbook override falls back to the
// public playbook, its terms are gone; and it reuses the parent's parse of
// the public layer instead of parsing it again.
func TestStackWithout(t *testing.T) {
	full := stackOf(t, dirFS(t, "testdata/layers/acme"))
	loadStack(t, full)
	view := full.Without(func(_ int, l Layer) bool { return l.Root == "acme" })
	lib, problems := loadStack(t, view)
	if len(problems) > 0 {
		t.Errorf("problems:\n%s", strings.Join(problems, "\n"))
	}
	var ids []string
	for _, in := range lib.Incidents {
		ids = append(ids, in.ID+"@"+in.Layer)
	}
	want := []string{"IL-9001@public", "IL-9002@public", "IL-9003@public", "IL-9004@public"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("incidents (-want +got):\n%s", diff)
	}
	pb, _ := lib.Playbook("pod-pending")
	if pb.Layer != PublicLayer || pb.Overrides != nil || pb.Title == "Pod stuck in Pending (ACME)" {
		t.Errorf("pod-pending = %q from %q (overrides %v), want the public playbook", pb.Title, pb.Layer, pb.Overrides)
	}
	if _, ok := lib.Playbook("acme-gateway"); ok {
		t.Error("the team's own playbook is in the view")
	}
	if lib.Taxonomy.Label(FacetCause, "gateway-misroute") != "gateway-misroute" {
		t.Errorf("the team's term is in the view's taxonomy: %q", lib.Taxonomy.Label(FacetCause, "gateway-misroute"))
	}
	if len(lib.Layers) != 1 || lib.Layers[0].Name != PublicLayer {
		t.Errorf("Layers = %+v, want public only", lib.Layers)
	}
	fullFiles, _ := full.Read(false)
	fullHash := fullFiles.Hash
	if lib.Hash == fullHash {
		t.Error("the view has the full library's hash: their read models would be confused")
	}
	if view.memo[0] != full.memo[0] {
		t.Error("the view parsed the public layer again instead of reusing the full stack's parse")
	}
}

// Share points the view's entries at the full library's where they are the
// same, and leaves those that differ (the public playbook the team's
// replaces) alone.
func TestShare(t *testing.T) {
	full := stackOf(t, dirFS(t, "testdata/layers/acme"))
	all, _ := loadStack(t, full)
	pub, _ := loadStack(t, full.Without(func(_ int, l Layer) bool { return l.Root == "acme" }))
	pub.Share(all)
	for _, in := range pub.Incidents {
		if o, _ := all.Incident(in.ID); o != in {
			t.Errorf("%s is not shared", in.ID)
		}
	}
	if a, _ := all.Playbook("gpu-missing"); func() *Playbook { p, _ := pub.Playbook("gpu-missing"); return p }() != a {
		t.Error("gpu-missing is not shared")
	}
	a, _ := all.Playbook("pod-pending")
	p, _ := pub.Playbook("pod-pending")
	if a == p || p.Layer != PublicLayer {
		t.Errorf("the view's pod-pending became the team's override (layer %q)", p.Layer)
	}
}

// TestLoadFilesParsesWhatWasHashed checks that a load after Read parses the
// bytes Read hashed, not the folder as it is by then: the library's hash
// must describe what was parsed, and a cold load reads each file once.
func TestLoadFilesParsesWhatWasHashed(t *testing.T) {
	const p = "incidents/IL-9001-driver-rollout-hid-gpus.md"
	fsys := dirFS(t, "testdata/good")
	s := NewStack(Layer{FS: fsys})
	files, err := s.Read(true)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := Hash(fsys); files.Hash != h {
		t.Fatalf("Read's hash %s, the folder's %s", files.Hash, h)
	}
	before, _, _ := Load(dirFS(t, "testdata/good"))
	old, _ := before.Incident("IL-9001")

	// Changed on disk between the hash and the parse.
	fsys[p].Data = bytes.Replace(fsys[p].Data, []byte("title: "), []byte("title: Changed "), 1)
	lib, _, err := s.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if lib.Hash != files.Hash {
		t.Errorf("library hash %s, want the hash read %s", lib.Hash, files.Hash)
	}
	if in, _ := lib.Incident("IL-9001"); in.Title != old.Title {
		t.Errorf("LoadFiles parsed the file as changed after Read: title %q, want %q", in.Title, old.Title)
	}
	// The Files are spent: the next load reads the folder.
	again, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := again.Incident("IL-9001"); !strings.HasPrefix(in.Title, "Changed ") || again.Hash == files.Hash {
		t.Errorf("Load after the change: title %q, hash changed %v", in.Title, again.Hash != files.Hash)
	}

	// Released files keep their hash and are read from the folder.
	files, err = s.Read(true)
	if err != nil {
		t.Fatal(err)
	}
	files.Release()
	fsys[p].Data = bytes.Replace(fsys[p].Data, []byte("title: Changed "), []byte("title: Twice "), 1)
	lib, _, err = NewStack(Layer{FS: fsys}).LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := lib.Incident("IL-9001"); !strings.HasPrefix(in.Title, "Twice ") {
		t.Errorf("LoadFiles of released files: title %q, want the folder's", in.Title)
	}
}
