package search

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/library"
)

func TestSuggest(t *testing.T) {
	tax := loadLibrary(t).Taxonomy
	type term struct {
		Facet library.Facet
		ID    string
	}
	tests := []struct {
		query   string
		want    []term // in this order, at the start of the suggestions
		without []term
	}{
		{"taint toleration GPU mismatch", []term{{"symptom", "untolerated-taint"}, {"cause", "scheduling-policy-misconfigured"}, {"component", "gpu-hardware"}}, nil},
		{"GPU node present but workload not scheduled", []term{{"symptom", "gpu-workload-not-scheduled"}}, []term{{"component", "kube-scheduler"}}},
		{"Pod pending on GPU node", []term{{"symptom", "pod-pending"}}, nil},
		{"tolerations", []term{{"symptom", "untolerated-taint"}}, nil},
		{"Insufficient nvidia.com/gpu", []term{{"symptom", "gpu-workload-not-scheduled"}, {"component", "nvidia-device-plugin"}}, nil},
		{"노드 자동 복구", []term{{"component", "node-auto-repair"}, {"cause", "automated-remediation-loop"}}, nil},
		{"노드자동복구가 계속 돈다", []term{{"component", "node-auto-repair"}}, nil},
		{"드라이버를 설치 실패", []term{{"symptom", "driver-install-failure"}, {"cause", "driver-build-failure"}, {"component", "gpu-driver"}}, nil},
		{"CrashLoopBackOff after upgrade", []term{{"symptom", "crashloop"}, {"factor", "upgrade-side-effect"}}, nil},
		{"pod-pending", []term{{"symptom", "pod-pending"}}, nil},
		{"kubectl logs", nil, []term{{"component", "kubelet"}}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var got []term
			for _, s := range Suggest(tax, tt.query) {
				got = append(got, term{s.Facet, s.Term})
				want, _ := tax.Term(s.Facet, s.Term)
				if s.Label != want.Label {
					t.Errorf("%s/%s labelled %q, want %q", s.Facet, s.Term, s.Label, want.Label)
				}
			}
			if len(got) < len(tt.want) || !slices.Equal(got[:len(tt.want)], tt.want) {
				t.Errorf("Suggest(%q) = %v, want it to start with %v", tt.query, got, tt.want)
			}
			for _, w := range tt.without {
				if slices.Contains(got, w) {
					t.Errorf("Suggest(%q) = %v, must not contain %v", tt.query, got, w)
				}
			}
		})
	}
}

func TestSuggestBoundsAndEmpty(t *testing.T) {
	tax := loadLibrary(t).Taxonomy
	if got := Suggest(tax, ""); len(got) != 0 {
		t.Errorf("Suggest(\"\") = %v", got)
	}
	long := "gpu driver kernel panic oomkilled dns timeout etcd webhook ingress crashloopbackoff xid nccl vllm"
	if got := Suggest(tax, long); len(got) != maxSuggestions {
		t.Errorf("Suggest(long) returned %d suggestions, want %d", len(got), maxSuggestions)
	}
}

func TestNormalWords(t *testing.T) {
	for in, want := range map[string][]string{
		"Insufficient nvidia.com/gpu": {"insufficient", "nvidia", "com", "gpu"},
		"Tolerations, taints":         {"toleration", "taint"},
		"노드가 NotReady":                {"노드", "notready"},
		"GPU가 안 보임":                   {"gpu", "안", "보임"},
		"파드에서 OOM이":                   {"파드", "oom"},
		"":                            {},
	} {
		if diff := cmp.Diff(want, normalWords(in)); diff != "" {
			t.Errorf("normalWords(%q) (-want +got):\n%s", in, diff)
		}
	}
}
