package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeRejects(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not json", "hello", "not a JSON object"},
		{"no version", `{"target":{"namespace":"a","name":"b"}}`, `no "version"`},
		{"future version", `{"version":2}`, "version 2"},
		{"unknown field", `{"version":1,"target":{"namespace":"a","name":"b"},"secrets":[]}`, `unknown field "secrets"`},
		{"no target", `{"version":1}`, "target needs"},
		{"bad quantity", `{"version":1,"target":{"namespace":"a","name":"b"},"nodes":[{"name":"n","allocatable":{"nvidia.com/gpu":"lots"}}]}`, `bad quantity "lots"`},
		{"number quantity", `{"version":1,"target":{"namespace":"a","name":"b"},"nodes":[{"name":"n","allocatable":{"cpu":4}}]}`, "quantity must be a string"},
		{"nameless node", `{"version":1,"target":{"namespace":"a","name":"b"},"nodes":[{}]}`, "nodes[0] has no name"},
		{"bad read error", `{"version":1,"target":{"namespace":"a","name":"b"},"readErrors":[{"what":"x","kind":"oops","permission":{"verb":"get","resource":"pods"}}]}`, `unknown kind "oops"`},
		{"trailing", `{"version":1,"target":{"namespace":"a","name":"b"}} {}`, "after top-level value"},
		{"scan with bad entry", `{"version":1,"namespace":"a","snapshots":[{"version":1,"target":{"namespace":"a"}}]}`, "snapshots[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// Every testdata file survives Encode then Decode unchanged, so a
// downloaded snapshot triages exactly like the live one.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, err := Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, &first[0]); err != nil {
			t.Fatal(err)
		}
		second, err := Decode(&buf)
		if err != nil {
			t.Fatalf("%s re-read: %v", f, err)
		}
		var a, b bytes.Buffer
		_ = Encode(&a, &first[0])
		_ = Encode(&b, &second[0])
		if a.String() != b.String() {
			t.Errorf("%s changed in a round trip", f)
		}
	}
}

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"4", 4}, {"500m", 0.5}, {"16Gi", 16 << 30}, {"1e3", 1000}, {"1.5k", 1500}, {"128974848", 128974848}, {"2Ki", 2048},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err != nil || q.Value() != tt.want {
			t.Errorf("ParseQuantity(%q) = %v, %v; want %v", tt.in, q.Value(), err, tt.want)
		}
	}
	for _, bad := range []string{"", " 4", "1.2.3", "0x10", "4 Gi", "NaN", "Inf"} {
		if _, err := ParseQuantity(bad); err == nil {
			t.Errorf("ParseQuantity(%q) accepted", bad)
		}
	}
}
