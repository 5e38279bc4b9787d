package library

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// snapshotVersion names the shape of Incident and Playbook and of every
// type inside them. gob quietly drops fields it does not know and leaves
// missing ones empty, so a snapshot written by a build with other types is
// refused (and the library parsed) rather than decoded into the wrong
// shape. A Body's layout is not a type, so it has its own version here:
// change bodyLayout with pack.
var snapshotVersion = bodyLayout + ":" + typeFingerprint(reflect.TypeFor[Incident](), reflect.TypeFor[Playbook](), reflect.TypeFor[LayerInfo]())

// bodyLayout names the layout pack writes (framing, compression, checksum).
const bodyLayout = "body2"

func typeFingerprint(types ...reflect.Type) string {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Map {
				walk(t.Key())
			}
			fmt.Fprintf(&b, "%s;", t.Kind())
			t = t.Elem()
		}
		fmt.Fprintf(&b, "%s{", t.String())
		if t.Kind() == reflect.Struct && !seen[t] {
			seen[t] = true
			for i := range t.NumField() {
				f := t.Field(i)
				if f.IsExported() {
					b.WriteString(f.Name + ":")
					walk(f.Type)
				}
			}
		}
		b.WriteString("}")
	}
	for _, t := range types {
		walk(t)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// snapshotHeader opens a snapshot; the incidents and then the playbooks
// follow one gob value each, so neither writing nor reading ever holds the
// whole encoding in memory.
type snapshotHeader struct {
	Version   string
	Hash      string
	Incidents int
	Playbooks int
	Layers    []LayerInfo
}

// WriteSnapshot writes lib's incidents and playbooks, parsed and
// rendered, so that ReadSnapshot can restore them without parsing
// Markdown. Decoding is several times faster than parsing, which is what
// makes a warm start of a large library fast. The incidents' section texts
// are written as they are held, compressed (see Body). The taxonomy is not
// in it: it is small and parsed from taxonomy.yaml anyway.
func WriteSnapshot(w io.Writer, lib *Library) error {
	enc := gob.NewEncoder(w)
	err := enc.Encode(snapshotHeader{Version: snapshotVersion, Hash: lib.Hash, Incidents: len(lib.Incidents), Playbooks: len(lib.Playbooks), Layers: lib.Layers})
	for _, in := range lib.Incidents {
		if err != nil {
			break
		}
		err = enc.Encode(in)
	}
	for _, pb := range lib.Playbooks {
		if err != nil {
			break
		}
		err = enc.Encode(pb)
	}
	if err != nil {
		return fmt.Errorf("library: write snapshot: %w", err)
	}
	return nil
}

// ReadSnapshot restores a Library written by WriteSnapshot, with tax as
// its taxonomy. It fails unless the snapshot is whole and of the content
// with this hash, or an incident's section texts (Body) are damaged.
func ReadSnapshot(r io.Reader, tax *Taxonomy, hash string) (*Library, error) {
	dec := gob.NewDecoder(r)
	var h snapshotHeader
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("library: read snapshot: %w", err)
	}
	if h.Version != snapshotVersion || h.Hash != hash {
		return nil, fmt.Errorf("library: snapshot is version %s of %.12s, want version %s of %.12s", h.Version, h.Hash, snapshotVersion, hash)
	}
	lib := &Library{Taxonomy: tax, Hash: hash, Layers: h.Layers, Incidents: make([]*Incident, 0, h.Incidents), Playbooks: make([]*Playbook, 0, h.Playbooks),
		incByID: make(map[string]*Incident, h.Incidents), pbByID: make(map[string]*Playbook, h.Playbooks)}
	for range h.Incidents {
		in := &Incident{}
		if err := dec.Decode(in); err != nil {
			return nil, fmt.Errorf("library: read snapshot: %w", err)
		}
		if err := in.Body.check(); err != nil {
			return nil, fmt.Errorf("library: read snapshot: %s: %w", in.ID, err)
		}
		if in.Ko != nil {
			if err := in.Ko.Body.check(); err != nil {
				return nil, fmt.Errorf("library: read snapshot: %s (Korean): %w", in.ID, err)
			}
		}
		lib.incByID[in.ID] = in
		lib.Incidents = append(lib.Incidents, in)
	}
	for range h.Playbooks {
		pb := &Playbook{}
		if err := dec.Decode(pb); err != nil {
			return nil, fmt.Errorf("library: read snapshot: %w", err)
		}
		lib.pbByID[pb.ID] = pb
		lib.Playbooks = append(lib.Playbooks, pb)
	}
	return lib, nil
}
