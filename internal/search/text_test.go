package search

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIdentifiers(t *testing.T) {
	got := identifiers("Pods stay Pending with `Insufficient nvidia.com/gpu`. AcceleratedHardwareReady=False, libdcgm.so and OOMKilled (exit 137) on g5g.xlarge; k8s-device-plugin. GPUs are fine.")
	want := []string{"nvidia.com/gpu", "acceleratedhardwareready", "libdcgm.so", "oomkilled", "g5g.xlarge", "k8s-device-plugin", "gpus"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("identifiers (-want +got):\n%s", diff)
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in      string
		words   []string
		phrases []string
		bad     bool
	}{
		{in: "GPU node  present", words: []string{"GPU", "node", "present"}},
		{in: `"kernel panic" after upgrade`, words: []string{"after", "upgrade"}, phrases: []string{"kernel panic"}},
		{in: `“Failed to initialize NVML”`, phrases: []string{"Failed to initialize NVML"}},
		{in: `gpu GPU Gpu`, words: []string{"gpu"}},
		{in: `"" gpu`, words: []string{"gpu"}},
		{in: `"unclosed`, phrases: []string{"unclosed"}},
		{in: `gpu "Failed to  initialize NVML`, words: []string{"gpu"}, phrases: []string{"Failed to initialize NVML"}},
		{in: `is forbidden: User "system:serviceaccount:`, words: []string{"is", "forbidden:", "User"}, phrases: []string{"system:serviceaccount:"}},
		{in: `"a b" "c`, phrases: []string{"a b", "c"}},
		{in: strings.Repeat("a", MaxQueryBytes+1), bad: true},
	}
	for _, tt := range tests {
		q, err := parseQuery(tt.in)
		if tt.bad {
			if !isQueryError(err) {
				t.Errorf("parseQuery(%.20q) = %v, want a *QueryError", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("parseQuery(%q): %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.words, q.words); diff != "" {
			t.Errorf("parseQuery(%q) words (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(tt.phrases, q.phrases); diff != "" {
			t.Errorf("parseQuery(%q) phrases (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		spans []span
		want  string
	}{
		{"short text is kept whole and escaped", `use <namespace> & "quotes"`, []span{{4, 15}},
			`use <mark>&lt;namespace&gt;</mark> &amp; &#34;quotes&#34;`},
		{"overlapping matches merge", "taint toleration", []span{{0, 5}, {0, 16}, {6, 16}},
			"<mark>taint toleration</mark>"},
		{"code lines fold into one line", "kubectl get pods\n  -n gpu", []span{{8, 11}},
			"kubectl <mark>get</mark> pods -n gpu"},
	}
	for _, tt := range tests {
		if got := excerpt(tt.text, tt.spans); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}

	long := strings.Repeat("filler words here ", 30) + "the GPU fell off the bus " + strings.Repeat("more filler ", 30)
	i := strings.Index(long, "GPU")
	got := excerpt(long, []span{{i, i + 3}})
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "<mark>GPU</mark>") {
		t.Errorf("long text: %q", got)
	}
	if n := len(strings.TrimSuffix(strings.TrimPrefix(got, "…"), "…")); n > fragmentBytes+len("<mark></mark>") {
		t.Errorf("long text excerpt is %d bytes, want at most about %d", n, fragmentBytes)
	}
}
