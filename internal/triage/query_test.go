package triage

import (
	"strings"
	"testing"
)

func TestSearchQuery(t *testing.T) {
	c := loadReal(t)
	tests := []struct {
		name, text string
		want       []string // words the query must hold
		not        []string // words it must not hold
	}{
		{
			name: "evidence lines, without times, addresses and pod hashes",
			text: "2025/06/04 07:12:55 error fetching config: Get \"http://config-svc.platform.svc.cluster.local:8080/v1/config\": dial tcp: lookup config-svc.platform.svc.cluster.local on 10.96.0.10:53: read udp 10.244.2.17:51234->10.96.0.10:53: i/o timeout",
			want: []string{"lookup", "timeout"},
			not:  []string{"10.96.0.10", "07:12:55", "2025"},
		},
		{
			name: "no signal: the lines that read as errors",
			text: "starting server\nlistening on :8080\nERROR ScaffoldWidget failed: quantum flux capacitor misaligned\nshutting down",
			want: []string{"ScaffoldWidget", "capacitor", "misaligned"},
			not:  []string{"listening", "starting"},
		},
		{
			name: "pod hashes and counts go",
			text: "Warning  BackOff  3m (x41 over 20m)  kubelet  Back-off restarting failed container api in pod api-7d9f8b6c5-2xk8q_prod(6a1e...)",
			want: []string{"Back-off", "restarting"},
			not:  []string{"api-7d9f8b6c5-2xk8q", "41"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := SearchQuery(tc.text, c.Classify(tc.text))
			words := strings.Fields(q)
			for _, w := range tc.want {
				if !containsWord(words, w) {
					t.Errorf("query %q lacks %q", q, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(q, w) {
					t.Errorf("query %q holds %q", q, w)
				}
			}
			if len(q) > maxQueryLen {
				t.Errorf("query is %d bytes", len(q))
			}
		})
	}
	if q := SearchQuery("", Result{}); q != "" {
		t.Errorf("empty paste gives %q", q)
	}
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

func TestMatchLevel(t *testing.T) {
	c := loadReal(t)
	for text, want := range map[string]string{
		"nothing here":                    MatchNone,
		"our readiness checks look flaky": MatchWeak,
		"Readiness probe failed: HTTP probe failed with statuscode: 503": MatchConfident,
	} {
		if got := c.Classify(text).Match; got != want {
			t.Errorf("Classify(%q).Match = %s, want %s", text, got, want)
		}
	}
}
