package library

import "testing"

func TestIsIncidentID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"IL-0001", true},
		{"IL-0042", true},
		{"IL-9999", true},
		{"IL-10000", true},
		{"IL-100000", true},
		{"IL-999999", true},
		{"IL-42", false},
		{"IL-00042", false}, // a second spelling of IL-0042
		{"IL-012345", false},
		{"IL-1000000", false},
		{"il-0042", false},
		{"IL-0042a", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			if got := IsIncidentID(tc.id); got != tc.want {
				t.Errorf("IsIncidentID(%q) = %v, want %v", tc.id, got, tc.want)
			}
		})
	}
}
