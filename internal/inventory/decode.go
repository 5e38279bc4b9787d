package inventory

import (
	"casebook/internal/snapshot"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Decode reads an inventory file written by Encode. Like
// Decode it is strict, because the file may come from an upload: unknown
// fields, another version, a malformed quantity or a nameless object are
// errors, never a half-read inventory that checks would pass.
func Decode(r io.Reader) (*Inventory, error) {
	data, err := io.ReadAll(io.LimitReader(r, snapshot.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("inventory: read: %w", err)
	}
	if len(data) > snapshot.MaxFileSize {
		return nil, fmt.Errorf("inventory: file is larger than %d MiB", snapshot.MaxFileSize>>20)
	}
	var head struct {
		Version *int   `json:"version"`
		Kind    string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("inventory: not a JSON object: %w", err)
	}
	if head.Kind != Kind {
		return nil, fmt.Errorf("inventory: \"kind\" is %q, want %q; is this a Casebook inventory (casebook gaps --save)?", head.Kind, Kind)
	}
	if head.Version == nil || *head.Version != Version {
		return nil, fmt.Errorf("inventory: version %v, this Casebook reads version %d", deref(head.Version), Version)
	}
	var inv Inventory
	if err := snapshot.StrictJSON(data, &inv); err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	if err := inv.Validate(); err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	return &inv, nil
}

func deref(p *int) any {
	if p == nil {
		return "missing"
	}
	return *p
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
