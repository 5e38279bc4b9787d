package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode is the snapshot upload: any bytes give snapshots or an error,
// never a panic, and what decodes survives an encode/decode round trip.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files[:min(len(files), 6)] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "{}", "null", "[]", `{"version":1}`, `{"version":1,"snapshots":[{}]}`, `{"version":1,"pod":{"name":"x","namespace":"y"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		snaps, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		for i := range snaps {
			buf.Reset()
			if err := Encode(&buf, &snaps[i]); err != nil {
				t.Fatalf("decoded snapshot does not encode: %v", err)
			}
			if _, err := Decode(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatalf("re-encoded snapshot does not decode: %v\n%s", err, buf.Bytes())
			}
		}
	})
}
