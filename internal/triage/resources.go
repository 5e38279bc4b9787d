package triage

import (
	"regexp"
	"slices"
	"strings"
)

// A pod that asks for a MIG profile (nvidia.com/mig-1g.5gb) on nodes whose
// MIG strategy exposes whole GPUs (nvidia.com/gpu), or the other way round,
// waits forever: the scheduler only says "Insufficient nvidia.com/mig-1g.5gb".
// When a paste shows both the pod's request and a node's Capacity or
// Allocatable, the two sets of names are compared, and a requested GPU
// resource that the node lists under another name is a MIG strategy or
// resource-name mismatch (the GPU Operator's policy, layer 4).
var (
	resourceLine = regexp.MustCompile(`^\s*"?((?:nvidia\.com|amd\.com)/[A-Za-z0-9._-]+)"?:\s+"?(\d+)`)
	blockHeader  = regexp.MustCompile(`^\s*(Capacity|Allocatable|Limits|Requests|Allocated resources|limits|requests|capacity|allocatable):\s*$`)
	insufficient = regexp.MustCompile(`Insufficient ((?:nvidia\.com|amd\.com)/[A-Za-z0-9._-]+)`)
)

// resourceMismatch is the built-in signal for that comparison; it has no
// text of its own, so it lives in code rather than in signals.yaml.
var resourceMismatch = &Signal{
	ID:     "resource-name-mismatch",
	Scope:  ScopeLine,
	Route:  "gpu/operator-policy",
	Weight: 0.9,
	Note:   "The pod requests a GPU resource name the node does not advertise, while the node advertises another GPU resource name.",
}

// resourceHits compares the GPU resources a paste shows as requested (Limits
// and Requests blocks, "Insufficient <name>") with those it shows as
// advertised (Capacity and Allocatable blocks with a non-zero count).
func resourceHits(lines []string) []hit {
	type seen struct {
		line int
		text string
	}
	requested := map[string]seen{}
	advertised := map[string]bool{}
	block := ""
	for i, l := range lines {
		if m := blockHeader.FindStringSubmatch(l); m != nil {
			block = strings.ToLower(m[1])
			continue
		}
		if m := insufficient.FindStringSubmatch(l); m != nil {
			if _, ok := requested[m[1]]; !ok {
				requested[m[1]] = seen{i, l}
			}
		}
		m := resourceLine.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) == "" || !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
				block = ""
			}
			continue
		}
		switch block {
		case "capacity", "allocatable":
			if m[2] != "0" {
				advertised[m[1]] = true
			}
		case "limits", "requests":
			if _, ok := requested[m[1]]; !ok {
				requested[m[1]] = seen{i, l}
			}
		}
	}
	if len(advertised) == 0 {
		return nil
	}
	names := make([]string, 0, len(requested))
	for n := range requested {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		if advertised[name] || !isGPUName(name) {
			continue
		}
		for other := range advertised {
			if isGPUName(other) {
				s := requested[name]
				return []hit{{sig: resourceMismatch, weight: resourceMismatch.Weight, line: s.line, text: s.text, at: max(0, strings.Index(s.text, name)), alone: true}}
			}
		}
	}
	return nil
}

// isGPUName reports whether a resource name is a whole GPU or a MIG slice.
func isGPUName(name string) bool {
	return strings.HasSuffix(name, "/gpu") || strings.Contains(name, "/mig-")
}

// kubectl prints some states only as a column of a table: a ResourceClaim
// that no driver allocated is a row "pod0-gpu-7xk2p   pending   12m" under
// "NAME  STATE  AGE", a claim without a volume a row under "NAME  STATUS
// VOLUME  CAPACITY ...". tableHits reads such rows under their header.
type tableRule struct {
	header *regexp.Regexp
	column string // the header's column that holds the state
	value  string // the state, compared case-sensitively as kubectl prints it
	sig    *Signal
}

var tableRules = []tableRule{
	{
		header: regexp.MustCompile(`^\s*NAME\s+STATE\s+AGE\s*$`), column: "STATE", value: "pending",
		sig: &Signal{ID: "resourceclaim-table-pending", Scope: ScopeLine, Route: "pending/dra-claim-unallocated", Weight: 0.8,
			Note: "kubectl get resourceclaims: STATE pending means no driver allocated the claim."},
	},
	{
		header: regexp.MustCompile(`^\s*NAME\s+STATUS\s+VOLUME\s+CAPACITY\s`), column: "STATUS", value: "Pending",
		sig: &Signal{ID: "pvc-table-pending", Scope: ScopeLine, Route: "pending/volume", Weight: 0.75,
			Note: "kubectl get pvc: STATUS Pending means no volume was bound or provisioned."},
	},
}

func tableHits(lines []string, routes map[string]*Node) []hit {
	var hits []hit
	for _, r := range tableRules {
		if _, ok := routes[r.sig.Route]; !ok {
			continue
		}
		col := -1
		for i, l := range lines {
			if r.header.MatchString(l) {
				col = strings.Index(l, r.column)
				continue
			}
			if col < 0 {
				continue
			}
			if strings.TrimSpace(l) == "" || col >= len(l) {
				col = -1
				continue
			}
			// Values start at the header's column; an empty cell before
			// it can shift nothing, kubectl pads with spaces.
			if f := strings.Fields(l[col:]); len(f) > 0 && f[0] == r.value && l[col] != ' ' {
				hits = append(hits, hit{sig: r.sig, weight: r.sig.Weight, line: i, text: l, at: col, alone: true})
			}
		}
	}
	return hits
}
