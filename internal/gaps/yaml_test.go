package gaps

import (
	"testing"

	"casebook/internal/drill"
	"casebook/internal/library"
)

// A check or drill file that is not YAML is reported on the line where it
// breaks, as the library's own files are: yaml.v3's parser counts lines
// from 0 and its scanner from 1, and only the library's reader knew.
func TestYAMLErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
	}{
		{"unclosed list", "id: x\ntitle: T\nkinds: [nodes\nseverity: low\n", 3},
		{"unclosed mapping", "id: x\ntitle: T\nseverity: low\nincidents: {a: b\n", 4},
		{"tab indent", "id: x\ntitle: T\nkinds:\n\t- nodes\n", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := parseCheck("checks/x.yaml", []byte(tc.src))
			_, dprobs := drill.Parse("drills/x.yaml", []byte(tc.src))
			for who, ps := range map[string][]library.Problem{"check": probs, "drill": dprobs} {
				if len(ps) != 1 || ps[0].Line != tc.line {
					t.Errorf("%s: %v, want one problem on line %d", who, ps, tc.line)
				}
			}
		})
	}
}
