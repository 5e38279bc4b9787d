package library

import (
	"bytes"
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
	// Everything comes back but the incidents' Markdown and HTML, which
	// the read model holds; the library written keeps them.
	want := *lib
	want.Incidents = nil
	markup := 0
	for _, in := range lib.Incidents {
		want.Incidents = append(want.Incidents, withoutMarkup(in))
		for _, s := range in.Sections {
			if s.HTML != "" && s.Markdown != "" {
				markup++
			}
		}
	}
	if markup == 0 {
		t.Fatal("writing the snapshot removed the library's own Markdown and HTML")
	}
	opts := cmp.Options{cmpopts.IgnoreUnexported(Library{}), cmpopts.EquateEmpty(), cmp.Comparer(func(a, b *Taxonomy) bool { return a == b })}
	if diff := cmp.Diff(&want, got, opts); diff != "" {
		t.Fatalf("snapshot round trip (-want +got):\n%s", diff)
	}
	for _, in := range got.Incidents {
		for _, s := range append(in.Sections, koSections(in)...) {
			if s.HTML != "" || s.Markdown != "" {
				t.Fatalf("%s: section %s kept its markup in the snapshot", in.ID, s.ID)
			}
		}
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

func koSections(in *Incident) []Section {
	if in.Ko == nil {
		return nil
	}
	return in.Ko.Sections
}
