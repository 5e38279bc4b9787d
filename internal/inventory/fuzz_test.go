package inventory

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzDecode: any upload gives an inventory or an error, never a panic; a
// decoded inventory survives a round trip; a list nested past the JSON
// decoder's own bound or a file over the size limit is an error.
func FuzzDecode(f *testing.F) {
	if b, err := os.ReadFile("../gaps/testdata/planted.json"); err == nil {
		f.Add(b)
	}
	head := `{"version":1,"kind":"Inventory","collectedAt":"2026-03-01T00:00:00Z",`
	for _, s := range []string{"", "{", "[]", head + `"pods":null}`, head + `"pods":[{"name":"p","namespace":"n"}]}`,
		head + `"nodes":` + strings.Repeat("[", 20000) + `}`, `{"kind":"Inventory","version":1,"x":` + strings.Repeat(`{"a":`, 5000) + `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := Decode(bytes.NewReader(data))
		if err != nil {
			if inv != nil {
				t.Fatal("an error and an inventory")
			}
			return
		}
		var buf bytes.Buffer
		if err := Encode(&buf, inv); err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(&buf); err != nil && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("a decoded inventory does not decode again: %v", err)
		}
	})
}
