package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxFileSize bounds a snapshot file read by Decode; a real snapshot is a
// few hundred KiB even for a namespace scan.
const MaxFileSize = 32 << 20

// Decode reads a snapshot file written by Encode: either one Snapshot or a
// Scan. It is strict, because the file may come from anywhere (an upload,
// another team): unknown fields, a wrong version, a malformed quantity or a
// missing name are errors that say what is wrong, never a half-read
// snapshot that probes would misread.
func Decode(r io.Reader) ([]Snapshot, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("snapshot: read: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("snapshot: file is larger than %d MiB", MaxFileSize>>20)
	}
	var head struct {
		Version   *int            `json:"version"`
		Snapshots json.RawMessage `json:"snapshots"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("snapshot: not a JSON object: %w", err)
	}
	if head.Version == nil {
		return nil, errors.New("snapshot: no \"version\" field; is this a Casebook snapshot?")
	}
	if *head.Version != Version {
		return nil, fmt.Errorf("snapshot: version %d, this Casebook reads version %d", *head.Version, Version)
	}
	if head.Snapshots != nil {
		var sc Scan
		if err := strict(data, &sc); err != nil {
			return nil, err
		}
		for i := range sc.Snapshots {
			if err := sc.Snapshots[i].Validate(); err != nil {
				return nil, fmt.Errorf("snapshot: snapshots[%d]: %w", i, err)
			}
		}
		return sc.Snapshots, nil
	}
	var s Snapshot
	if err := strict(data, &s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return []Snapshot{s}, nil
}

func strict(data []byte, v any) error {
	if err := StrictJSON(data, v); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// StrictJSON decodes exactly one JSON value into v, refusing unknown
// fields: the rule for every file Casebook reads from an upload, so the
// inventory decoder shares it.
func StrictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value in the file")
	}
	return nil
}

// Encode writes a snapshot or a scan as indented JSON, the download format.
func Encode(w io.Writer, v any) error {
	switch v.(type) {
	case *Snapshot, *Scan, Snapshot, Scan:
	default:
		return fmt.Errorf("snapshot: cannot encode %T", v)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

var readErrorKinds = map[string]bool{ReadForbidden: true, ReadTimeout: true, ReadUnavailable: true, ReadNotFound: true, ReadOther: true}

// KnownKind reports whether the error's Kind is one of the ReadError*
// constants; a decoder refuses others.
func (e ReadError) KnownKind() bool { return readErrorKinds[e.Kind] }

// Validate checks what the probes rely on: a target, names on every
// object, and known read error kinds.
func (s *Snapshot) Validate() error {
	if s.Version != Version {
		return fmt.Errorf("version %d, want %d", s.Version, Version)
	}
	if s.Target.Namespace == "" || s.Target.Name == "" {
		return errors.New("target needs a namespace and a name")
	}
	if p := s.Pod; p != nil {
		if p.Name == "" || p.Namespace == "" {
			return errors.New("pod needs a name and a namespace")
		}
		if p.Phase == "" {
			return fmt.Errorf("pod %s has no phase", p.Name)
		}
		for i, c := range p.AllContainers() {
			if c.Name == "" {
				return fmt.Errorf("pod %s: container %d has no name", p.Name, i)
			}
		}
	}
	for i, n := range s.Nodes {
		if n.Name == "" {
			return fmt.Errorf("nodes[%d] has no name", i)
		}
	}
	for i, e := range s.Events {
		if e.Object.Kind == "" || e.Object.Name == "" {
			return fmt.Errorf("events[%d] names no object", i)
		}
	}
	for i, o := range s.Owners {
		if o.Kind == "" || o.Name == "" {
			return fmt.Errorf("owners[%d] needs a kind and a name", i)
		}
	}
	for i, d := range s.DaemonSets {
		if d.Name == "" || d.Namespace == "" {
			return fmt.Errorf("gpuDaemonSets[%d] needs a name and a namespace", i)
		}
	}
	for i, e := range s.ReadErrors {
		if !e.KnownKind() {
			return fmt.Errorf("readErrors[%d]: unknown kind %q", i, e.Kind)
		}
	}
	return nil
}
