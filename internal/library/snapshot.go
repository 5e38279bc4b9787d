package library

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
)

// snapshotVersion names the shape of Incident and Playbook and of every
// type inside them. gob quietly drops fields it does not know and leaves
// missing ones empty, so a snapshot written by a build with other types is
// refused (and the library parsed) rather than decoded into the wrong
// shape. A Body's layout is not a type, so it has its own version here:
// change bodyLayout with pack.
var snapshotVersion = bodyLayout + ":" + typeFingerprint(reflect.TypeFor[Incident](), reflect.TypeFor[Playbook](), reflect.TypeFor[LayerInfo]())

// SnapshotVersion is the version a snapshot is written with and read at,
// for content.DataVersions.
func SnapshotVersion() string { return snapshotVersion }

// bodyLayout names the layout pack writes (framing, compression, checksum)
// and where a snapshot keeps it (body3: a bodies file beside the gob).
const bodyLayout = "body3"

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

// snapshotHeader opens a snapshot; the incidents, each followed by the
// place of its bodies (snapshotSpans), and then the playbooks follow one gob
// value each, so neither writing nor reading ever holds the whole encoding
// in memory.
type snapshotHeader struct {
	Version   string
	Hash      string
	Incidents int
	Playbooks int
	Layers    []LayerInfo
	// BodyBytes is the size of the bodies file written with the snapshot.
	BodyBytes int64
}

// snapshotSpans are an incident's two bodies' places in the bodies file:
// English, then Korean. A length of zero is no body.
type snapshotSpans struct {
	Off, N, KoOff, KoN int64
}

// BodyPlaces records where WriteBodies wrote each body, so that the
// library's bodies can move there once the file is in place (MoveTo).
type BodyPlaces struct {
	bodies []Body
	offs   []int64
}

// MoveTo lets the bodies WriteBodies wrote be read from f, the bodies
// file it wrote, instead of being held in memory. f stays open as long as
// a body refers to it. Bodies already in a file stay where they are.
func (p *BodyPlaces) MoveTo(f *os.File) {
	for i, b := range p.bodies {
		b.moveTo(f, p.offs[i])
	}
}

// SnapshotBodies is what WriteBodies wrote: where each body went, for
// MoveTo and for WriteEntries.
type SnapshotBodies struct {
	Places *BodyPlaces
	spans  []snapshotSpans
	size   int64
}

// A snapshot is lib's incidents and playbooks, parsed and rendered, so that
// ReadSnapshot can restore them without parsing Markdown. Decoding is
// several times faster than parsing, which is what makes a warm start of a
// large library fast. It is two files. WriteBodies writes the first: the
// incidents' section texts, packed as they are held (see Body), one after
// the other. WriteEntries writes the second, the entries with their
// bodies' places. The taxonomy is in neither: it is small and parsed from
// taxonomy.yaml anyway. A cold load writes the bodies, and moves lib's
// bodies to their file, before the rest, to hold less in memory while its
// read models are built.
func WriteBodies(bodies io.Writer, lib *Library) (*SnapshotBodies, error) {
	// The bodies first, so that the header can say how many bytes they
	// are and each incident where its own are.
	places := &BodyPlaces{}
	spans := make([]snapshotSpans, len(lib.Incidents))
	var off int64
	put := func(b Body) (int64, int64, error) {
		p, err := b.bytes()
		if err != nil || len(p) == 0 {
			return 0, 0, err
		}
		if _, err := bodies.Write(p); err != nil {
			return 0, 0, err
		}
		places.bodies, places.offs = append(places.bodies, b), append(places.offs, off)
		at := off
		off += int64(len(p))
		return at, int64(len(p)), nil
	}
	var err error
	for i, in := range lib.Incidents {
		sp := &spans[i]
		if sp.Off, sp.N, err = put(in.Body); err != nil {
			return nil, fmt.Errorf("library: write snapshot: %s: %w", in.ID, err)
		}
		if in.Ko != nil {
			if sp.KoOff, sp.KoN, err = put(in.Ko.Body); err != nil {
				return nil, fmt.Errorf("library: write snapshot: %s (Korean): %w", in.ID, err)
			}
		}
	}
	return &SnapshotBodies{Places: places, spans: spans, size: off}, nil
}

// WriteEntries writes the second half of lib's snapshot, the entries,
// with b, what WriteBodies wrote of the same lib.
func WriteEntries(w io.Writer, lib *Library, b *SnapshotBodies) error {
	if len(b.spans) != len(lib.Incidents) {
		return errors.New("library: write snapshot: the bodies written are another library's")
	}
	enc := gob.NewEncoder(w)
	err := enc.Encode(snapshotHeader{Version: snapshotVersion, Hash: lib.Hash, Incidents: len(lib.Incidents), Playbooks: len(lib.Playbooks),
		Layers: lib.Layers, BodyBytes: b.size})
	for i, in := range lib.Incidents {
		if err != nil {
			break
		}
		if err = enc.Encode(in); err == nil {
			err = enc.Encode(b.spans[i])
		}
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

// ReadSnapshot restores a Library written by WriteBodies and WriteEntries, with tax as
// its taxonomy, from r and the bodies file written with it, which its
// incidents' bodies then read (it stays open while they are referred to;
// on an error the caller closes it). It fails unless the snapshot is
// whole and of the content with this hash, and every body in the file is
// where the snapshot says and whole (its checksum matches).
func ReadSnapshot(r io.Reader, bodies *os.File, tax *Taxonomy, hash string) (*Library, error) {
	dec := gob.NewDecoder(r)
	var h snapshotHeader
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("library: read snapshot: %w", err)
	}
	if h.Version != snapshotVersion || h.Hash != hash {
		return nil, fmt.Errorf("library: snapshot is version %s of %.12s, want version %s of %.12s", h.Version, h.Hash, snapshotVersion, hash)
	}
	st, err := bodies.Stat()
	if err != nil {
		return nil, fmt.Errorf("library: read snapshot: %w", err)
	}
	if st.Size() != h.BodyBytes {
		return nil, fmt.Errorf("library: read snapshot: %w: the bodies file has %d bytes, the snapshot wrote %d", errBody, st.Size(), h.BodyBytes)
	}
	if h.Incidents < 0 || h.Playbooks < 0 || h.Incidents > 1<<24 || h.Playbooks > 1<<24 {
		return nil, fmt.Errorf("library: read snapshot: %d incidents and %d playbooks", h.Incidents, h.Playbooks)
	}
	lib := &Library{Taxonomy: tax, Hash: hash, Layers: h.Layers, Incidents: make([]*Incident, 0, h.Incidents), Playbooks: make([]*Playbook, 0, h.Playbooks),
		incByID: make(map[string]*Incident, h.Incidents), pbByID: make(map[string]*Playbook, h.Playbooks)}
	// Every body is checked as it is placed, reading the file once from
	// start to end: the writer put them one after the other.
	check := bufio.NewReaderSize(io.NewSectionReader(bodies, 0, h.BodyBytes), 1<<20)
	var off int64
	var buf []byte
	place := func(at, n int64) (Body, error) {
		if n == 0 {
			return Body{}, nil
		}
		if at != off || n < 4 || n > h.BodyBytes-off {
			return Body{}, fmt.Errorf("%w: at %d+%d, want %d", errBody, at, n, off)
		}
		buf = slices.Grow(buf[:0], int(n))[:n]
		if _, err := io.ReadFull(check, buf); err != nil {
			return Body{}, fmt.Errorf("%w: %v", errBody, err)
		}
		if err := checkPacked(buf); err != nil {
			return Body{}, err
		}
		off += n
		return fileBody(bodies, at, int(n)), nil
	}
	for range h.Incidents {
		in := &Incident{}
		var sp snapshotSpans
		err := dec.Decode(in)
		if err == nil {
			err = dec.Decode(&sp)
		}
		if err != nil {
			return nil, fmt.Errorf("library: read snapshot: %w", err)
		}
		if in.Body, err = place(sp.Off, sp.N); err != nil {
			return nil, fmt.Errorf("library: read snapshot: %s: %w", in.ID, err)
		}
		if in.Ko != nil {
			if in.Ko.Body, err = place(sp.KoOff, sp.KoN); err != nil {
				return nil, fmt.Errorf("library: read snapshot: %s (Korean): %w", in.ID, err)
			}
		} else if sp.KoN != 0 {
			return nil, fmt.Errorf("library: read snapshot: %s: %w: a Korean body without a Korean text", in.ID, errBody)
		}
		lib.incByID[in.ID] = in
		lib.Incidents = append(lib.Incidents, in)
	}
	if off != h.BodyBytes {
		return nil, fmt.Errorf("library: read snapshot: %w: the bodies end at %d of %d bytes", errBody, off, h.BodyBytes)
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
