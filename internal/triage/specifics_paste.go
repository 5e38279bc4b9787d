package triage

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// What a paste can say about a Pending pod's particulars: the scheduler's
// reasons name taints ("had untolerated taint {nvidia.com/gpu: present}"
// since 1.25, "had taint {k: v}, that the pod didn't tolerate" before)
// and short resources ("Insufficient nvidia.com/gpu") with node counts;
// kubectl describe pod adds the selector ("Node-Selectors: k=v") and the
// requests of each container.
var (
	taintReason  = regexp.MustCompile(`(?i)had (?:untolerated )?taints? \{([^}]*)\}`)
	countedTaint = regexp.MustCompile(`(?i)(\d+) node\(s\) had (?:untolerated )?taints? \{([^}]*)\}`)
	// shortReason drops punctuation a poster left on the name ("3
	// insufficient nvidia.com/gpu!"): resource names end in a letter or digit.
	shortReason   = regexp.MustCompile(`^(?i:insufficient) ([A-Za-z0-9][A-Za-z0-9./_-]*[A-Za-z0-9])[^A-Za-z0-9./_-]*$`)
	selectorHead  = regexp.MustCompile(`^Node-Selectors:\s*(.*)$`)
	selectorNoMat = regexp.MustCompile(`(?i)didn't match (?:pod's )?node (?:affinity/)?selector|didn't match node selector|MatchNodeSelector`)
	quantityLine  = regexp.MustCompile(`^\s*"?([A-Za-z0-9./_-]+)"?:\s+"?([0-9.]+[A-Za-z]*)"?\s*$`)
)

// controlPlaneTaint names the taints the control plane carries: a pod that
// was never meant for those nodes lists them among its reasons, and they
// are not what keeps it Pending when other nodes are named.
func controlPlaneTaint(key string) bool {
	return key == "node-role.kubernetes.io/control-plane" || key == "node-role.kubernetes.io/master"
}

// PasteSpecifics pulls the particulars out of a pasted text: every
// scheduler message's taints, short resources and selector misses, with
// the selector and requests of a pasted kubectl describe pod.
func PasteSpecifics(text string) Specifics {
	lines := splitLines(text)
	var sp Specifics
	taints := map[string]int{}
	var taintOrder []string
	shorts := map[string]int{}
	var shortOrder []string
	selectorNodes := 0
	for i := range lines {
		if !isSchedulerLine(lowerASCII(lines[i])) {
			// A wrapped or cut event keeps "2 node(s) had untolerated
			// taint {k: v}" without the "0/N nodes" head.
			for _, m := range countedTaint.FindAllStringSubmatch(lines[i], -1) {
				key := strings.TrimSpace(m[2])
				if _, ok := taints[key]; !ok {
					taintOrder = append(taintOrder, key)
				}
				n, _ := strconv.Atoi(m[1])
				taints[key] = max(taints[key], n)
			}
			continue
		}
		m := parseScheduler(lines, i)
		for _, r := range m.Reasons {
			if r.Preemption {
				continue
			}
			if tm := taintReason.FindStringSubmatch(r.Text); tm != nil {
				key := strings.TrimSpace(tm[1])
				if _, ok := taints[key]; !ok {
					taintOrder = append(taintOrder, key)
				}
				taints[key] = max(taints[key], r.Count)
				continue
			}
			if sm := shortReason.FindStringSubmatch(strings.TrimSpace(r.Text)); sm != nil {
				if _, ok := shorts[sm[1]]; !ok {
					shortOrder = append(shortOrder, sm[1])
				}
				shorts[sm[1]] = max(shorts[sm[1]], r.Count)
				continue
			}
			if selectorNoMat.MatchString(r.Text) {
				selectorNodes = max(selectorNodes, r.Count)
			}
		}
	}
	// The control plane's taint matters only when it is the only one.
	keep := taintOrder[:0:0]
	for _, kv := range taintOrder {
		key, _, _ := strings.Cut(kv, ":")
		if !controlPlaneTaint(strings.TrimSpace(key)) || len(taintOrder) == 1 {
			keep = append(keep, kv)
		}
	}
	for _, kv := range keep {
		key, value, _ := strings.Cut(kv, ":")
		sp.Taints = append(sp.Taints, TaintSpec{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value), NodeCount: taints[kv]})
	}
	requests := describeRequests(lines)
	for _, res := range shortOrder {
		s := Shortfall{Resource: res, NodeCount: shorts[res]}
		if q, ok := requests[res]; ok {
			s.Requested = q
		}
		sp.Shortfalls = append(sp.Shortfalls, s)
	}
	if selectorNodes > 0 {
		for _, kv := range describeSelectors(lines) {
			k, v, _ := strings.Cut(kv, "=")
			sp.Selectors = append(sp.Selectors, SelectorSpec{Key: k, Wanted: v, NodeCount: selectorNodes})
		}
	}
	return sp
}

// describeSelectors reads "Node-Selectors:" of kubectl describe pod and
// its continuation lines ("<none>" is none).
func describeSelectors(lines []string) []string {
	var out []string
	for i, l := range lines {
		m := selectorHead.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		add := func(s string) {
			s = strings.TrimSpace(s)
			if s != "" && s != "<none>" && strings.Contains(s, "=") {
				out = append(out, s)
			}
		}
		add(m[1])
		indent := strings.Index(l, m[1])
		for j := i + 1; j < len(lines) && indent > 0; j++ {
			next := lines[j]
			if len(next) <= indent || strings.TrimSpace(next[:indent]) != "" {
				break
			}
			add(next)
		}
		break
	}
	sort.Strings(out)
	return out
}

// describeRequests sums the Requests blocks of kubectl describe pod per
// resource, as the scheduler does for regular containers.
func describeRequests(lines []string) map[string]string {
	sums := map[string]float64{}
	units := map[string]string{}
	block, indent := false, 0
	for _, l := range lines {
		trim := strings.TrimSpace(l)
		if trim == "Requests:" {
			block, indent = true, len(l)-len(strings.TrimLeft(l, " \t"))
			continue
		}
		if !block {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		m := quantityLine.FindStringSubmatch(l)
		if m == nil || ind <= indent {
			block = false
			continue
		}
		v, unit, ok := splitQuantity(m[2])
		if !ok || (units[m[1]] != "" && units[m[1]] != unit) {
			continue
		}
		sums[m[1]] += v
		units[m[1]] = unit
	}
	out := map[string]string{}
	for res, v := range sums {
		out[res] = strconv.FormatFloat(v, 'f', -1, 64) + units[res]
	}
	return out
}

// splitQuantity cuts "500m" into 500 and "m", "2Gi" into 2 and "Gi".
func splitQuantity(q string) (float64, string, bool) {
	i := strings.IndexFunc(q, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := q, ""
	if i >= 0 {
		num, unit = q[:i], q[i:]
	}
	v, err := strconv.ParseFloat(num, 64)
	return v, unit, err == nil
}
