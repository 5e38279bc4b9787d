package library

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTaxonomyGood(t *testing.T) {
	src, err := os.ReadFile("testdata/good/taxonomy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tax, problems, err := ParseTaxonomy("taxonomy.yaml", src)
	if err != nil || len(problems) > 0 {
		t.Fatalf("ParseTaxonomy: %v %v", err, problems)
	}
	term, ok := tax.Term(FacetCause, "missing-library")
	if !ok {
		t.Fatal("cause missing-library not found")
	}
	want := &Term{Facet: FacetCause, ID: "missing-library", Label: "Missing library in the image", LabelKo: "이미지에 빠진 라이브러리",
		Aliases: []string{"missing dependency"}, Description: "A package the software needs was left out of the image.",
		DescriptionKo: "소프트웨어에 필요한 패키지가 이미지에서 빠졌다.",
		Category:      "software-defect", Line: 32, Path: "taxonomy.yaml"}
	if diff := cmp.Diff(want, term); diff != "" {
		t.Errorf("term (-want +got):\n%s", diff)
	}
	var ids []string
	for _, term := range tax.Terms(FacetComponent) {
		ids = append(ids, term.ID)
	}
	if diff := cmp.Diff([]string{"gpu-driver", "node-os-image", "kube-scheduler", "container-registry"}, ids); diff != "" {
		t.Errorf("components are not in file order (-want +got):\n%s", diff)
	}
	if got := tax.Suggest(FacetComponent, "kube-sheduler"); got != "kube-scheduler" {
		t.Errorf("Suggest = %q", got)
	}
}

func TestParseTaxonomyProblems(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{
			name: "unknown category with a suggestion",
			src: `cause_categories:
  - {id: software-defect, label: Software defect, label_ko: 소프트웨어 결함}
causes:
  - {id: bug, category: sofware-defect, label: Bug, label_ko: 버그}
`,
			want: []string{`taxonomy.yaml:4: cause "bug": unknown category "sofware-defect" (did you mean "software-defect"?)`},
		},
		{
			name: "cause without a category",
			src: `causes:
  - {id: bug, label: Bug, label_ko: 버그}
`,
			want: []string{`taxonomy.yaml:2: cause "bug" has no category`},
		},
		{
			name: "duplicate id",
			src: `domains:
  - {id: kubernetes, label: Kubernetes, label_ko: 쿠버네티스}
  - {id: kubernetes, label: K8s, label_ko: 쿠버네티스}
`,
			want: []string{`taxonomy.yaml:3: duplicate domain id "kubernetes" (first on line 2)`},
		},
		{
			name: "missing Korean label",
			src: `symptoms:
  - {id: pod-pending, label: Pod pending}
`,
			want: []string{`taxonomy.yaml:2: symptom "pod-pending" has no label_ko`},
		},
		{
			name: "description without its Korean twin",
			src: `symptoms:
  - {id: pod-pending, label: Pod pending, label_ko: 파드 Pending, description_ko: 파드가 Pending에 머문다.}
  - id: node-not-ready
    label: Node NotReady
    label_ko: 노드 NotReady
    description: Nodes report NotReady.
`,
			want: []string{`taxonomy.yaml:3: symptom "node-not-ready" has a description but no description_ko`},
		},
		{
			name: "parent that does not exist",
			src: `components:
  - {id: gpu-driver, label: GPU driver, label_ko: GPU 드라이버}
  - {id: nvidia-dkms, label: DKMS, label_ko: DKMS, parent: gpu-drivr}
`,
			want: []string{`taxonomy.yaml:3: component "nvidia-dkms": parent "gpu-drivr" is not a component (did you mean "gpu-driver"?)`},
		},
		{
			name: "bad id",
			src: `domains:
  - {id: AI Infra, label: AI, label_ko: AI}
`,
			want: []string{`taxonomy.yaml:2: term id "AI Infra" must be lower-case words joined by hyphens`},
		},
		{
			name: "unknown list",
			src: `symtoms:
  - {id: a, label: A, label_ko: A}
`,
			want: []string{`taxonomy.yaml:1: unknown taxonomy list "symtoms" (want one of cause_categories, causes, components, symptoms, contributing_factors, domains, names)`},
		},
		{
			name: "name without aliases",
			src: `names:
  - {name: Linode, aliases: [리노드]}
  - {name: GitHub}
`,
			want: []string{`taxonomy.yaml:3: a name needs name and aliases`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems, err := ParseTaxonomy("taxonomy.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, problemStrings(problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTaxonomyUnusable(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"not a mapping", "- a\n- b\n", "taxonomy.yaml:1: taxonomy must be a mapping of facet lists"},
		{"empty", "", "taxonomy.yaml:1: taxonomy must be a mapping of facet lists"},
		{"stray list item", "causes:\n  - id: a\n- id: b\n", "taxonomy.yaml:3: malformed YAML: line 3: did not find expected key"},
		{"tab", "causes:\n\t- id: a\n", "taxonomy.yaml:2: malformed YAML: line 2: found character that cannot start any token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems, err := ParseTaxonomy("taxonomy.yaml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff([]string{tt.want}, problemStrings(problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		year int
		ok   bool
	}{
		{"2024-03-05", 2024, true},
		{"2024-03", 2024, true},
		{"2024-02-29", 2024, true}, // leap year
		{"2000-02-29", 2000, true}, // divisible by 400
		{"2023-02-29", 0, false},
		{"1900-02-29", 0, false}, // out of range anyway
		{"2100-02-29", 0, false}, // divisible by 100, not 400
		{"2024-02-30", 0, false},
		{"2024-04-31", 0, false},
		{"2024-13", 0, false},
		{"2024-00-10", 0, false},
		{"2024-01-00", 0, false},
		{"2024-1-5", 0, false},
		{"03/05/2024", 0, false},
		{"2024", 0, false},
		{"1969-12-31", 0, false},
		{"2024-03-05T10:00:00Z", 0, false},
	}
	for _, tt := range tests {
		y, ok := parseDate(tt.in)
		if y != tt.year || ok != tt.ok {
			t.Errorf("parseDate(%q) = %d, %v; want %d, %v", tt.in, y, ok, tt.year, tt.ok)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	ids := []string{"gpu-driver", "gpu-firmware", "node-os-image", "kube-scheduler"}
	tests := []struct{ in, want string }{
		{"gpu-drivr", ` (did you mean "gpu-driver"?)`},
		{"GPU-Driver", ` (did you mean "gpu-driver"?)`},
		{"scheduler", ` (did you mean "kube-scheduler"?)`},
		{"banana-split", ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.in, ids); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
