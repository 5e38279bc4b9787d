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
	want := map[string][2][]Section{}
	for _, in := range lib.Incidents {
		want[in.ID] = [2][]Section{in.FullSections(), in.Ko.FullSections()}
	}
	var buf, bodies bytes.Buffer
	written, err := WriteBodies(&bodies, lib)
	if err == nil {
		err = WriteEntries(&buf, lib, written)
	}
	if err != nil {
		t.Fatal(err)
	}
	places := written.Places
	data := buf.Bytes()
	good := bodiesFile(t, bodies.Bytes())
	got, err := ReadSnapshot(bytes.NewReader(data), good, lib.Taxonomy, lib.Hash)
	if err != nil {
		t.Fatal(err)
	}
	// Everything comes back, the section texts (read from the bodies
	// file) too.
	opts := cmp.Options{cmpopts.IgnoreUnexported(Library{}), cmpopts.EquateEmpty(), cmp.Comparer(func(a, b *Taxonomy) bool { return a == b }),
		cmpopts.IgnoreFields(Incident{}, "Body"), cmpopts.IgnoreFields(IncidentKo{}, "Body")}
	if diff := cmp.Diff(lib, got, opts); diff != "" {
		t.Fatalf("snapshot round trip (-want +got):\n%s", diff)
	}
	texts := 0
	for _, in := range got.Incidents {
		if diff := cmp.Diff(want[in.ID], [2][]Section{in.FullSections(), in.Ko.FullSections()}, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: sections after the round trip (-want +got):\n%s", in.ID, diff)
		}
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
	// The library written moves its bodies to the file: they leave
	// memory and read the same.
	places.MoveTo(good)
	moved := 0
	for _, in := range lib.Incidents {
		if in.Body.c != nil && in.Body.c.mem.Load() == nil {
			moved++
		}
		if diff := cmp.Diff(want[in.ID], [2][]Section{in.FullSections(), in.Ko.FullSections()}, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: sections once moved to the file (-want +got):\n%s", in.ID, diff)
		}
	}
	if moved != len(lib.Incidents) {
		t.Errorf("%d of %d incidents' bodies moved to the file", moved, len(lib.Incidents))
	}

	if _, err := ReadSnapshot(bytes.NewReader(data), good, lib.Taxonomy, "other"); err == nil {
		t.Error("a snapshot of other content was accepted")
	}
	if _, err := ReadSnapshot(bytes.NewReader(data[:len(data)/2]), good, lib.Taxonomy, lib.Hash); err == nil {
		t.Error("a truncated snapshot was accepted")
	}
	// One flipped byte inside a body, or a bodies file of another size:
	// the snapshot is refused (the loader then parses the library) instead
	// of serving damaged text.
	bad := bytes.Clone(bodies.Bytes())
	bad[len(bad)/2] ^= 0x20
	if _, err := ReadSnapshot(bytes.NewReader(data), bodiesFile(t, bad), lib.Taxonomy, lib.Hash); !errors.Is(err, errBody) {
		t.Errorf("a snapshot with a damaged section body: err = %v, want errBody", err)
	}
	short := bodies.Bytes()[:bodies.Len()-1]
	if _, err := ReadSnapshot(bytes.NewReader(data), bodiesFile(t, short), lib.Taxonomy, lib.Hash); !errors.Is(err, errBody) {
		t.Errorf("a snapshot with a short bodies file: err = %v, want errBody", err)
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
