package search

import "testing"

// FuzzParseQuery: whatever a user types, the parser returns a query or a
// QueryError, never a panic.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"taint toleration GPU mismatch", `"Failed to initialize NVML"`, `"unclosed`, "노드 자동 복구", "nvidia.com/gpu OOMKilled", `""`, `a "b c" -d +e`, "\x00\xff", "((("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := parseQuery(s)
		if err != nil {
			if _, ok := err.(*QueryError); !ok {
				t.Fatalf("parseQuery(%q) returned %T, want *QueryError", s, err)
			}
			return
		}
		if q == nil {
			t.Fatalf("parseQuery(%q) returned nil without an error", s)
		}
	})
}
