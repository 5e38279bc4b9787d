package mcp

import "testing"

func TestHeadingPart(t *testing.T) {
	md := "Intro.\n\n### Cause A\nA text.\n\n```bash\n# not a heading\nkubectl get pods\n```\n\n#### A detail\nDetail.\n\n### Cause B\nB text.\n"
	tests := []struct {
		name string
		n, i int
		want string
		ok   bool
	}{
		{"runs to the next heading of its level", 3, 0, "### Cause A\nA text.\n\n```bash\n# not a heading\nkubectl get pods\n```\n\n#### A detail\nDetail.", true},
		{"a deeper heading stops at the next shallower one", 3, 1, "#### A detail\nDetail.", true},
		{"the last runs to the end", 3, 2, "### Cause B\nB text.", true},
		{"a count that disagrees with the parser gives up", 4, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := headingPart(md, tt.n, tt.i)
			if ok != tt.ok || got != tt.want {
				t.Errorf("headingPart(_, %d, %d) = %q, %v; want %q, %v", tt.n, tt.i, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestIncidentID(t *testing.T) {
	for in, want := range map[string]string{"IL-0021": "IL-0021", "il-21": "IL-0021", " IL21 ": "IL-0021", "IL-4": "IL-0004", "ACME-0007": "ACME-0007", "acme-7": "ACME-0007", "IL-10001": "IL-10001"} {
		if got, err := incidentID(in); err != nil || got != want {
			t.Errorf("incidentID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "IL-00001", "21", "../IL-0021", "IL-0021.md"} {
		if _, err := incidentID(in); err == nil {
			t.Errorf("incidentID(%q) accepted", in)
		}
	}
}
