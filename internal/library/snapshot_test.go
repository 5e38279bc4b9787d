package library

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSnapshotRoundTrip(t *testing.T) {
	lib, _, err := Load(os.DirFS("../../library"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, lib); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	got, err := ReadSnapshot(bytes.NewReader(data), lib.Taxonomy, lib.Hash)
	if err != nil {
		t.Fatal(err)
	}
	// Everything comes back, the section texts (held compressed) too.
	opts := cmp.Options{cmpopts.IgnoreUnexported(Library{}), cmpopts.EquateEmpty(), cmp.Comparer(func(a, b *Taxonomy) bool { return a == b })}
	if diff := cmp.Diff(lib, got, opts); diff != "" {
		t.Fatalf("snapshot round trip (-want +got):\n%s", diff)
	}
	texts := 0
	for _, in := range got.Incidents {
		for _, s := range append(in.FullSections(), in.Ko.FullSections()...) {
			if s.HTML != "" && s.Markdown != "" && s.Text != "" {
				texts++
			}
		}
	}
	if texts == 0 {
		t.Fatal("no section of the restored library has its Markdown, HTML and text")
	}
	for _, in := range lib.Incidents {
		if g, ok := got.Incident(in.ID); !ok || g.Title != in.Title {
			t.Errorf("Incident(%s) after the round trip = %v, %v", in.ID, g, ok)
		}
	}
	for _, pb := range lib.Playbooks {
		if _, ok := got.Playbook(pb.ID); !ok {
			t.Errorf("Playbook(%s) missing after the round trip", pb.ID)
		}
	}
	if _, err := ReadSnapshot(bytes.NewReader(data), lib.Taxonomy, "other"); err == nil {
		t.Error("a snapshot of other content was accepted")
	}
	if _, err := ReadSnapshot(bytes.NewReader(data[:len(data)/2]), lib.Taxonomy, lib.Hash); err == nil {
		t.Error("a truncated snapshot was accepted")
	}
	// One flipped byte inside a compressed body: gob decodes it, the
	// checksum does not match, and the snapshot is refused (the loader
	// then parses the library) instead of serving damaged text.
	body := lib.Incidents[len(lib.Incidents)/2].Body
	i := bytes.Index(data, body[4:])
	if i < 0 {
		t.Fatal("the incident's body is not in the snapshot as written")
	}
	bad := bytes.Clone(data)
	bad[i+len(body[4:])/2] ^= 0x20
	if _, err := ReadSnapshot(bytes.NewReader(bad), lib.Taxonomy, lib.Hash); !errors.Is(err, errBody) {
		t.Errorf("a snapshot with a damaged section body: err = %v, want errBody", err)
	}
}

func TestSnapshotVersionFollowsTypes(t *testing.T) {
	// Each T below is named "library.T"; only the fields differ.
	base := func() reflect.Type {
		type T struct {
			X string
			Y []int
		}
		return reflect.TypeFor[T]()
	}()
	fieldType := func() reflect.Type {
		type T struct {
			X string
			Y []int64
		}
		return reflect.TypeFor[T]()
	}()
	fieldName := func() reflect.Type {
		type T struct {
			X string
			Z []int
		}
		return reflect.TypeFor[T]()
	}()
	same := func() reflect.Type {
		type T struct {
			X string
			Y []int
		}
		return reflect.TypeFor[T]()
	}()
	fa := typeFingerprint(base)
	if fa != typeFingerprint(same) {
		t.Fatal("two types of the same shape have different fingerprints")
	}
	for name, other := range map[string]reflect.Type{"field type": fieldType, "field name": fieldName} {
		if typeFingerprint(other) == fa {
			t.Errorf("a change of %s keeps the fingerprint", name)
		}
	}
}
