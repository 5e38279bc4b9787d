package library

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// goodIncidents and goodPlaybooks are the files of testdata/good by id.
var (
	goodIncidents = map[string]string{
		"IL-9001": "incidents/IL-9001-driver-rollout-hid-gpus.md",
		"IL-9002": "incidents/IL-9002-scheduler-change-left-pods-pending.md",
		"IL-9003": "incidents/IL-9003-agent-image-shipped-without-library.md",
		"IL-9004": "incidents/IL-9004-blocked-image-pulls.md",
	}
	goodPlaybooks = map[string]string{
		"gpu-missing": "playbooks/gpu-missing.md",
		"pod-pending": "playbooks/pod-pending.md",
	}
)

func TestLoadGoodLibrary(t *testing.T) {
	lib, problems, err := Load(dirFS(t, "testdata/good"))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("problems in the good library:\n%s", strings.Join(problemStrings(problems), "\n"))
	}
	var ids []string
	for _, in := range lib.Incidents {
		ids = append(ids, in.ID)
	}
	if diff := cmp.Diff([]string{"IL-9001", "IL-9002", "IL-9003", "IL-9004"}, ids); diff != "" {
		t.Errorf("incidents are not newest first (-want +got):\n%s", diff)
	}
	var pbs []string
	for _, pb := range lib.Playbooks {
		pbs = append(pbs, pb.ID)
	}
	if diff := cmp.Diff([]string{"gpu-missing", "pod-pending"}, pbs); diff != "" {
		t.Errorf("playbooks (-want +got):\n%s", diff)
	}

	in, ok := lib.Incident("IL-9001")
	if !ok {
		t.Fatal("IL-9001 not found by id")
	}
	want := &Incident{
		ID:                  "IL-9001",
		Title:               "Driver rollout hid GPUs on every node",
		Summary:             "TEST FIXTURE - a synthetic incident where a driver rollout made GPUs disappear fleet-wide.",
		Organization:        "Example GPU Co",
		Date:                "2024-03-05",
		Year:                2024,
		Domains:             []string{"ai-infra", "kubernetes"},
		Components:          []string{"gpu-driver", "node-os-image"},
		Causes:              []string{"faulty-change-rollout"},
		Symptoms:            []string{"gpu-missing"},
		ContributingFactors: []string{"fleet-wide-blast-radius"},
		Trigger:             "A new driver package was rolled out to all nodes at once.",
		Detection:           "Training jobs failed to start and an alert on allocatable GPUs fired after ten minutes.",
		Sources: []Source{
			{URL: "https://example.com/postmortems/driver-rollout", Title: "Driver rollout postmortem (fixture)", Kind: "postmortem", Retrieved: "2026-01-15",
				Quote: "The new driver build was missing the kernel module for our kernel, so nvidia-smi found no devices on the upgraded nodes. (fixture)"},
			{URL: "https://status.example.com/incidents/42", Title: "Status page entry (fixture)", Kind: "status-page", Retrieved: "2026-01-15"},
		},
		Playbooks: []string{"gpu-missing"},
		Path:      "incidents/IL-9001-driver-rollout-hid-gpus.md",
		TitleKo:   "테스트 사례 제목",
		SummaryKo: "테스트용으로 만든 가상의 사례입니다.",
		Kind:      KindIncident,
		// A library on its own is the public layer; the fixture's files
		// have no modification time, so nothing says when they changed.
		Provenance: Provenance{Layer: PublicLayer},
	}
	if diff := cmp.Diff(want, in, cmpopts.IgnoreFields(Incident{}, "Sections", "Ko", "Body")); diff != "" {
		t.Errorf("IL-9001 (-want +got):\n%s", diff)
	}
	var titles []string
	for _, s := range in.FullSections() {
		titles = append(titles, s.Title)
	}
	if diff := cmp.Diff(IncidentSections, titles); diff != "" {
		t.Errorf("IL-9001 sections (-want +got):\n%s", diff)
	}
	if got := in.Section("response").Markdown; got != "- Rolled the driver back.\n- Rebooted the affected nodes." {
		t.Errorf("Response section markdown = %q", got)
	}
	if in2, _ := lib.Incident("IL-9002"); in2.Year != 2023 || in2.Date != "2023-11" {
		t.Errorf("IL-9002 month-only date: Date %q Year %d, want 2023-11 and 2023", in2.Date, in2.Year)
	}
}

// TestLoadBrokenFile adds one broken file to the good library at a time and
// checks the exact lint line for it, that the good files are untouched, and
// whether the broken file itself still loads (files with lesser problems do).
func TestLoadBrokenFile(t *testing.T) {
	tests := []struct {
		file  string // path under testdata/broken and inside the library
		want  []string
		loads string // id that the broken file still provides, "" if it is left out
	}{
		{
			file:  "incidents/IL-9101-unknown-term.md",
			want:  []string{`incidents/IL-9101-unknown-term.md:8: unknown Component "gpu-drivr" in components (did you mean "gpu-driver"?)`},
			loads: "IL-9101",
		},
		{
			file:  "incidents/IL-9102-missing-organization.md",
			want:  []string{`incidents/IL-9102-missing-organization.md:1: missing required field "organization"`},
			loads: "IL-9102",
		},
		{
			file: "incidents/IL-9103-missing-title.md",
			want: []string{`incidents/IL-9103-missing-title.md:1: missing required field "title"`},
		},
		{
			file: "incidents/IL-9001-zz-duplicate.md",
			want: []string{`incidents/IL-9001-zz-duplicate.md:2: duplicate incident id IL-9001 (also in incidents/IL-9001-driver-rollout-hid-gpus.md)`},
		},
		{
			// A copy whose file name sorts before the original must not
			// take the original's id: the file name decides.
			file: "incidents/IL-9000-copy-of-9001.md",
			want: []string{`incidents/IL-9000-copy-of-9001.md:2: id IL-9001 does not match the file name IL-9000-copy-of-9001.md (want IL-9001-slug.md)`},
		},
		{
			file: "incidents/IL-9115-id-not-file-name.md",
			want: []string{`incidents/IL-9115-id-not-file-name.md:2: id IL-9116 does not match the file name IL-9115-id-not-file-name.md (want IL-9116-slug.md)`},
		},
		{
			file: "incidents/IL-42-bad-id.md",
			want: []string{`incidents/IL-42-bad-id.md:2: id "IL-42" must look like IL-0042`},
		},
		{
			file:  "incidents/IL-9104-bad-date-format.md",
			want:  []string{`incidents/IL-9104-bad-date-format.md:6: bad date "03/05/2024": want YYYY-MM-DD or YYYY-MM`},
			loads: "IL-9104",
		},
		{
			file:  "incidents/IL-9105-impossible-date.md",
			want:  []string{`incidents/IL-9105-impossible-date.md:6: bad date "2024-02-30": want YYYY-MM-DD or YYYY-MM`},
			loads: "IL-9105",
		},
		{
			file:  "incidents/IL-9106-unknown-playbook.md",
			want:  []string{`incidents/IL-9106-unknown-playbook.md:17: links to playbook "gpu-mising", which does not exist (did you mean "gpu-missing"?)`},
			loads: "IL-9106",
		},
		{
			file: "incidents/IL-9107-unclosed-list.md",
			want: []string{`incidents/IL-9107-unclosed-list.md:7: malformed front matter: line 7: did not find expected ',' or ']'`},
		},
		{
			file: "incidents/IL-9108-colon-in-value.md",
			want: []string{`incidents/IL-9108-colon-in-value.md:4: malformed front matter: line 4: mapping values are not allowed in this context`},
		},
		{
			file: "incidents/IL-9109-no-front-matter.md",
			want: []string{`incidents/IL-9109-no-front-matter.md:1: missing front matter: the file must start with a line "---"`},
		},
		{
			file: "incidents/IL-9110-unclosed-front-matter.md",
			want: []string{`incidents/IL-9110-unclosed-front-matter.md:1: front matter is not closed by a line "---"`},
		},
		{
			file: "incidents/IL-9111-unknown-field.md",
			want: []string{
				`incidents/IL-9111-unknown-field.md:1: missing required field "summary"`,
				`incidents/IL-9111-unknown-field.md:4: unknown field "sumary" (did you mean "summary"?)`,
			},
			loads: "IL-9111",
		},
		{
			// The file has 34 lines; a missing section is reported on the
			// last one, where it would be added.
			file:  "incidents/IL-9112-missing-section.md",
			want:  []string{`incidents/IL-9112-missing-section.md:35: missing section "Lessons" (a "## Lessons" heading)`},
			loads: "IL-9112",
		},
		{
			file:  "incidents/IL-9113-sections-out-of-order.md",
			want:  []string{`incidents/IL-9113-sections-out-of-order.md:22: section "Trigger" is out of order (want Symptom, Trigger, Detection, Response, Follow-ups, Lessons)`},
			loads: "IL-9113",
		},
		{
			file: "incidents/IL-9114-bad-sources.md",
			want: []string{
				`incidents/IL-9114-bad-sources.md:12: source url "ftp://example.com/broken" is not an http(s) URL`,
				`incidents/IL-9114-bad-sources.md:16: source kind "postmortm" is not one of postmortem, status-page, talk, paper, blog, issue, article (did you mean "postmortem"?)`,
			},
			loads: "IL-9114",
		},
		{
			file:  "incidents/IL-9118-no-quote.md",
			want:  []string{`incidents/IL-9118-no-quote.md:11: no source carries a quote: copy the passage that supports what failed, why or what fixed it, verbatim and in its language, into a source's quote`},
			loads: "IL-9118",
		},
		{
			file: "playbooks/pod-pending-gpu.md",
			want: []string{`playbooks/pod-pending-gpu.md:2: playbook id pod-pending does not match the file name pod-pending-gpu.md (want pod-pending.md)`},
		},
		{
			file: "playbooks/gpu-slow.md",
			want: []string{
				`playbooks/gpu-slow.md:5: unknown Symptom "pod-pendng" in symptoms (did you mean "pod-pending"?)`,
				`playbooks/gpu-slow.md:22: missing section "Record" (a "## Record" heading)`,
			},
			loads: "gpu-slow",
		},
		{
			file: "incidents/IL-9116-new-fields.md",
			want: []string{
				`incidents/IL-9116-new-fields.md:1: missing required field "title_ko"`,
				`incidents/IL-9116-new-fields.md:11: kind "postmortem" is not one of incident, study`,
				`incidents/IL-9116-new-fields.md:12: route "Pending Taint" must look like pending/untolerated-taint`,
				`incidents/IL-9116-new-fields.md:13: bad added date "2024-13-01": want YYYY-MM-DD`,
				"incidents/IL-9116-new-fields.md:15: source https://example.com/news-rewrite has no retrieved date (the day it was read, YYYY-MM-DD)",
				"incidents/IL-9116-new-fields.md:15: every source is secondary: cite the primary write-up (a postmortem, status page, paper or issue) beside them",
				`incidents/IL-9116-new-fields.md:19: unknown source field "retrived" (did you mean "retrieved"?)`,
			},
			loads: "IL-9116",
		},
		{
			file: "incidents/IL-9117-orphan.ko.md",
			want: []string{"incidents/IL-9117-orphan.ko.md:1: Korean body without an English incident: there is no IL-9117-orphan.md"},
		},
		{
			// A Korean body with a section out of order and one that is
			// not an incident section; the English incident still loads.
			file: "incidents/IL-9002-scheduler-change-left-pods-pending.ko.md",
			want: []string{
				`incidents/IL-9002-scheduler-change-left-pods-pending.ko.md:8: section "감지" is out of order (want 증상, 촉발, 감지, 조치, 후속 조치, 교훈)`,
				`incidents/IL-9002-scheduler-change-left-pods-pending.ko.md:14: section "대응" is not one of 증상, 촉발, 감지, 조치, 후속 조치, 교훈`,
				`incidents/IL-9002-scheduler-change-left-pods-pending.ko.md:21: missing section "조치" (a "## 조치" heading)`,
			},
		},
		{
			file: "playbooks/pod-pending.ko.md",
			want: []string{
				`playbooks/pod-pending.ko.md:1: missing anchor #scope of pod-pending.md (heading "Scope")`,
				`playbooks/pod-pending.ko.md:1: missing anchor #notes of pod-pending.md (heading "Notes")`,
				`playbooks/pod-pending.ko.md:1: missing anchor #notes-1 of pod-pending.md (heading "Notes")`,
				`playbooks/pod-pending.ko.md:10: anchor #영향-범위-확인 is not in pod-pending.md: give the heading the English heading's anchor, like "## 탐지 {#detect}"`,
			},
		},
		{
			file: "playbooks/Bad_Id.md",
			want: []string{`playbooks/Bad_Id.md:2: playbook id "Bad_Id" must be lower-case words joined by hyphens`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lib, problems, err := Load(goodWith(t, tt.file))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, problemStrings(problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			assertGoodLoaded(t, lib)
			wantIncidents, wantPlaybooks := len(goodIncidents), len(goodPlaybooks)
			if tt.loads != "" {
				in, isInc := lib.Incident(tt.loads)
				pb, isPB := lib.Playbook(tt.loads)
				switch {
				case isInc && in.Path == tt.file:
					wantIncidents++
				case isPB && pb.Path == tt.file:
					wantPlaybooks++
				default:
					t.Errorf("%s should still load from %s", tt.loads, tt.file)
				}
			}
			if len(lib.Incidents) != wantIncidents || len(lib.Playbooks) != wantPlaybooks {
				t.Errorf("loaded %d incidents and %d playbooks, want %d and %d",
					len(lib.Incidents), len(lib.Playbooks), wantIncidents, wantPlaybooks)
			}
		})
	}
}

// assertGoodLoaded checks that every file of the good library loaded from
// its own path, whatever broken files sit beside it.
func assertGoodLoaded(t *testing.T, lib *Library) {
	t.Helper()
	for id, path := range goodIncidents {
		if in, ok := lib.Incident(id); !ok || in.Path != path {
			t.Errorf("good incident %s missing or taken over (got %+v)", id, in)
		}
	}
	for id, path := range goodPlaybooks {
		if pb, ok := lib.Playbook(id); !ok || pb.Path != path {
			t.Errorf("good playbook %s missing or taken over (got %+v)", id, pb)
		}
	}
}

func TestLoadDropsUnknownPlaybookLinks(t *testing.T) {
	lib, _, err := Load(goodWith(t, "incidents/IL-9106-unknown-playbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := lib.Incident("IL-9106")
	if diff := cmp.Diff([]string{"pod-pending"}, in.Playbooks); diff != "" {
		t.Errorf("links kept (-want +got):\n%s", diff)
	}
}

// TestLoadAllBroken loads every broken file at once: the output is what
// "lint" prints for such a folder, kept as a golden file.
func TestLoadAllBroken(t *testing.T) {
	fsys := goodWith(t)
	for p, f := range dirFS(t, "testdata/broken") {
		fsys[p] = f
	}
	lib, problems, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	assertGoodLoaded(t, lib)
	golden(t, "broken.golden", strings.Join(problemStrings(problems), "\n")+"\n")
}

func TestLoadNothingValid(t *testing.T) {
	fsys := fstest.MapFS{}
	good := dirFS(t, "testdata/good")
	fsys["taxonomy.yaml"] = good["taxonomy.yaml"]
	for p, f := range dirFS(t, "testdata/broken") {
		if p == "incidents/IL-9109-no-front-matter.md" || p == "playbooks/Bad_Id.md" {
			fsys[p] = f
		}
	}
	_, problems, err := Load(fsys)
	if !errors.Is(err, ErrNothingValid) {
		t.Fatalf("err = %v, want ErrNothingValid", err)
	}
	want := []string{
		`incidents/IL-9109-no-front-matter.md:1: missing front matter: the file must start with a line "---"`,
		`playbooks/Bad_Id.md:2: playbook id "Bad_Id" must be lower-case words joined by hyphens`,
	}
	if diff := cmp.Diff(want, problemStrings(problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestLoadWithoutTaxonomy(t *testing.T) {
	fsys := goodWith(t)
	delete(fsys, "taxonomy.yaml")
	if _, _, err := Load(fsys); err == nil || !strings.Contains(err.Error(), "taxonomy.yaml") {
		t.Fatalf("err = %v, want one naming taxonomy.yaml", err)
	}
}

func TestLoadMalformedTaxonomy(t *testing.T) {
	fsys := goodWith(t)
	fsys["taxonomy.yaml"] = &fstest.MapFile{Data: []byte("# comment\ncauses:\n  - id: a\n    aliases: [x, y\n  - id: b\n")}
	_, problems, err := Load(fsys)
	if err == nil {
		t.Fatal("Load succeeded with a malformed taxonomy")
	}
	want := []string{`taxonomy.yaml:4: malformed YAML: line 4: did not find expected ',' or ']'`}
	if diff := cmp.Diff(want, problemStrings(problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestHash(t *testing.T) {
	a := dirFS(t, "testdata/good")
	h1, err := Hash(a)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := Hash(dirFS(t, "testdata/good"))
	if h1 != h2 {
		t.Errorf("hash of the same files differs: %s vs %s", h1, h2)
	}
	// Editor and VCS files do not change the content.
	a[".git/HEAD"] = &fstest.MapFile{Data: []byte("ref: refs/heads/main\n")}
	a["incidents/.IL-9001.md.swp"] = &fstest.MapFile{Data: []byte("swap")}
	if h, _ := Hash(a); h != h1 {
		t.Error("hidden files changed the hash")
	}
	a["incidents/IL-9001-driver-rollout-hid-gpus.md"].Data = append(a["incidents/IL-9001-driver-rollout-hid-gpus.md"].Data, '\n')
	if h, _ := Hash(a); h == h1 {
		t.Error("hash did not change when a file changed")
	}
	lib, _, _ := Load(dirFS(t, "testdata/good"))
	if lib.Hash != h1 {
		t.Errorf("Library.Hash = %s, want Hash() = %s", lib.Hash, h1)
	}
}

// TestKoreanTwins checks that Korean bodies attach to their English files
// with the English anchors, so a link to #lessons or #cause-a-... works in
// both languages.
func TestKoreanTwins(t *testing.T) {
	lib, problems, err := Load(dirFS(t, "testdata/good"))
	if err != nil || len(problems) > 0 {
		t.Fatalf("Load: %v %v", err, problems)
	}
	in, _ := lib.Incident("IL-9001")
	if in.Ko == nil {
		t.Fatal("IL-9001 has no Korean body")
	}
	var ids, titles []string
	for _, s := range in.Ko.FullSections() {
		ids, titles = append(ids, s.ID), append(titles, s.Title)
	}
	if diff := cmp.Diff([]string{"symptom", "trigger", "detection", "response", "follow-ups", "lessons"}, ids); diff != "" {
		t.Errorf("Korean section anchors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(IncidentSectionsKo, titles); diff != "" {
		t.Errorf("Korean section titles (-want +got):\n%s", diff)
	}
	if in2, _ := lib.Incident("IL-9002"); in2.Ko != nil {
		t.Error("IL-9002 has no Korean file but got a Korean body")
	}
	pb, _ := lib.Playbook("gpu-missing")
	if pb.Ko == nil {
		t.Fatal("gpu-missing has no Korean playbook")
	}
	if pb.Ko.Title != "노드에서 GPU가 안 보일 때" {
		t.Errorf("Korean title %q", pb.Ko.Title)
	}
	if diff := cmp.Diff(pb.Anchors(), (&Playbook{Sections: pb.Ko.Sections}).Anchors()); diff != "" {
		t.Errorf("Korean anchors differ from English (-en +ko):\n%s", diff)
	}
	if got := pb.Ko.Sections[2].Anchors[0].Title; got != "원인 A: 드라이버가 안 올라옴" {
		t.Errorf("sub-heading title %q keeps its attribute text", got)
	}
}
