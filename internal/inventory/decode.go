package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"casebook/internal/snapshot"
)

// Decode reads an inventory file written by Encode. Like
// snapshot.Decode it is strict, because the file may come from an upload:
// unknown fields, another version, a malformed quantity or a nameless
// object are errors, never a half-read inventory that checks would pass.
//
// The file is decoded as a stream, one object of a list at a time, so it
// is never held whole beside what it decodes to: the memory a decode takes
// is that of the inventory, about proportional to the file. A file over
// snapshot.MaxFileSize is refused when the read passes it.
func Decode(r io.Reader) (*Inventory, error) {
	cr := &countingReader{r: r, left: snapshot.MaxFileSize}
	dec := json.NewDecoder(cr)
	dec.DisallowUnknownFields()
	var inv Inventory
	head, unknown, err := decodeObject(dec, &inv)
	switch {
	case cr.over:
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrTooLarge, snapshot.MaxFileSize>>20)
	case err != nil && !head.kind:
		return nil, fmt.Errorf("inventory: not a JSON object: %w", err)
	case !head.kind || inv.Kind != Kind:
		return nil, fmt.Errorf("inventory: \"kind\" is %q, want %q; is this a Casebook inventory (casebook gaps --save)?", inv.Kind, Kind)
	case !head.version || inv.Version != Version:
		v := any("missing")
		if head.version {
			v = inv.Version
		}
		return nil, fmt.Errorf("inventory: version %v, this Casebook reads version %d", v, Version)
	case err != nil:
		return nil, fmt.Errorf("inventory: %w", err)
	case unknown != "":
		return nil, fmt.Errorf("inventory: json: unknown field %q", unknown)
	}
	if _, err := dec.Token(); err != io.EOF {
		if cr.over {
			return nil, fmt.Errorf("%w: larger than %d MiB", ErrTooLarge, snapshot.MaxFileSize>>20)
		}
		return nil, errors.New("inventory: invalid data after top-level value: more than one JSON value in the file")
	}
	if err := inv.Validate(); err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	return &inv, nil
}

// seen says which of the fields a decoder checks first were in the file.
type seen struct{ kind, version bool }

// decodeObject decodes the top-level object into inv field by field, and
// each list one element at a time. An unknown top-level field is skipped
// and named (the first one), so a file of another kind is told apart by
// its "kind" before its fields are found unknown.
func decodeObject(dec *json.Decoder, inv *Inventory) (seen, string, error) {
	var head seen
	var unknown string
	if tok, err := dec.Token(); err != nil {
		return head, "", err
	} else if tok != json.Delim('{') {
		return head, "", fmt.Errorf("the file starts with %v, not {", tok)
	}
	fields := fieldsOf(inv)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return head, unknown, err
		}
		key, _ := tok.(string)
		f, ok := fields[key]
		switch {
		case !ok:
			if unknown == "" {
				unknown = key
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return head, unknown, err
			}
			continue
		case key == "kind":
			head.kind = true
		case key == "version":
			head.version = true
		}
		if f.Kind() != reflect.Slice {
			if err := dec.Decode(f.Addr().Interface()); err != nil {
				return head, unknown, fmt.Errorf("%s: %w", key, err)
			}
			continue
		}
		if err := decodeList(dec, f); err != nil {
			return head, unknown, fmt.Errorf("%s: %w", key, err)
		}
	}
	_, err := dec.Token() // the closing }
	return head, unknown, err
}

// decodeList decodes a JSON array (or null) into the slice f, one element
// at a time.
func decodeList(dec *json.Decoder, f reflect.Value) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("want a list, not %v", tok)
	}
	for dec.More() {
		el := reflect.New(f.Type().Elem())
		if err := dec.Decode(el.Interface()); err != nil {
			return fmt.Errorf("[%d]: %w", f.Len(), err)
		}
		f.Set(reflect.Append(f, el.Elem()))
	}
	_, err = dec.Token() // the closing ]
	return err
}

// fieldsOf maps the JSON names of the inventory's fields to them.
func fieldsOf(inv *Inventory) map[string]reflect.Value {
	v := reflect.ValueOf(inv).Elem()
	out := make(map[string]reflect.Value, v.NumField())
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = v.Field(i)
		}
	}
	return out
}

// countingReader reads r up to left bytes, then fails and says so.
type countingReader struct {
	r    io.Reader
	left int64
	over bool
}

// ErrTooLarge is a file over snapshot.MaxFileSize.
var ErrTooLarge = errors.New("inventory: file too large")

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a file of exactly the limit from a larger one.
		var one [1]byte
		for {
			n, err := c.r.Read(one[:])
			if n > 0 {
				c.over = true
				return 0, ErrTooLarge
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Encode writes an inventory as indented JSON, the download
// format.
func Encode(w io.Writer, inv *Inventory) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(inv)
}

// Validate checks what the gap checks rely on: names on every object,
// known kinds in Reads, known read error kinds.
func (inv *Inventory) Validate() error {
	if inv.Version != Version || inv.Kind != Kind {
		return fmt.Errorf("version %d kind %q, want %d %q", inv.Version, inv.Kind, Version, Kind)
	}
	named := func(list string, n int, name func(int) (string, string), namespaced bool) error {
		for i := range n {
			ns, nm := name(i)
			if nm == "" || (namespaced && ns == "") {
				return fmt.Errorf("%s[%d] needs a name%s", list, i, map[bool]string{true: " and a namespace"}[namespaced])
			}
		}
		return nil
	}
	checks := []error{
		named("nodes", len(inv.Nodes), func(i int) (string, string) { return "", inv.Nodes[i].Name }, false),
		named("namespaces", len(inv.Namespaces), func(i int) (string, string) { return "", inv.Namespaces[i].Name }, false),
		named("webhooks", len(inv.Webhooks), func(i int) (string, string) { return inv.Webhooks[i].ConfigName, inv.Webhooks[i].Name }, true),
		named("priorityClasses", len(inv.PriorityClasses), func(i int) (string, string) { return "", inv.PriorityClasses[i].Name }, false),
		named("podDisruptionBudgets", len(inv.PodDisruptionBudgets), func(i int) (string, string) {
			return inv.PodDisruptionBudgets[i].Namespace, inv.PodDisruptionBudgets[i].Name
		}, true),
		named("deployments", len(inv.Deployments), func(i int) (string, string) { return inv.Deployments[i].Namespace, inv.Deployments[i].Name }, true),
		named("statefulSets", len(inv.StatefulSets), func(i int) (string, string) { return inv.StatefulSets[i].Namespace, inv.StatefulSets[i].Name }, true),
		named("daemonSets", len(inv.DaemonSets), func(i int) (string, string) { return inv.DaemonSets[i].Namespace, inv.DaemonSets[i].Name }, true),
		named("jobs", len(inv.Jobs), func(i int) (string, string) { return inv.Jobs[i].Namespace, inv.Jobs[i].Name }, true),
		named("pods", len(inv.Pods), func(i int) (string, string) { return inv.Pods[i].Namespace, inv.Pods[i].Name }, true),
		named("resourceQuotas", len(inv.ResourceQuotas), func(i int) (string, string) { return inv.ResourceQuotas[i].Namespace, inv.ResourceQuotas[i].Name }, true),
		named("nodePools", len(inv.NodePools), func(i int) (string, string) { return "", inv.NodePools[i].Name }, false),
		named("nodeClasses", len(inv.NodeClasses), func(i int) (string, string) { return "", inv.NodeClasses[i].Name }, false),
		named("services", len(inv.Services), func(i int) (string, string) { return inv.Services[i].Namespace, inv.Services[i].Name }, true),
		named("endpointSlices", len(inv.EndpointSlices), func(i int) (string, string) { return inv.EndpointSlices[i].Namespace, inv.EndpointSlices[i].Name }, true),
		named("ingresses", len(inv.Ingresses), func(i int) (string, string) { return inv.Ingresses[i].Namespace, inv.Ingresses[i].Name }, true),
		named("horizontalPodAutoscalers", len(inv.HorizontalPodAutoscalers), func(i int) (string, string) {
			return inv.HorizontalPodAutoscalers[i].Namespace, inv.HorizontalPodAutoscalers[i].Name
		}, true),
	}
	if err := errors.Join(checks...); err != nil {
		return err
	}
	for i, r := range inv.Reads {
		if _, ok := Kinds[r.Kind]; !ok {
			return fmt.Errorf("reads[%d]: unknown kind %q", i, r.Kind)
		}
		for j, e := range r.Errors {
			if !e.KnownKind() {
				return fmt.Errorf("reads[%d].errors[%d]: unknown kind %q", i, j, e.Kind)
			}
		}
	}
	return nil
}
