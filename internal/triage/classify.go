package triage

import (
	"regexp"
	"slices"
	"strings"
)

// Limits that keep Classify linear and bounded whatever is pasted. The web
// API refuses bodies over MaxInput with 413; Classify itself reads only the
// first MaxInput bytes and MaxLines lines, and matches at most MaxLineLen
// bytes of a line.
const (
	MaxInput   = 1 << 20
	MaxLines   = 20000
	MaxLineLen = 4096
	// maxEvidence is how many lines one route shows.
	maxEvidence = 5
	// evidenceLen is how much of a line is echoed back.
	evidenceLen = 300
)

// Result is what Classify found, best route first. Routes is empty, not
// nil, when nothing matched, so the JSON is {"routes":[]}.
type Result struct {
	Routes []RouteMatch `json:"routes"`
	// Match says how far the answer goes: MatchConfident, MatchWeak (the
	// routes are the closest guesses, from weak evidence) or MatchNone.
	Match string `json:"match"`
	// Related are library entries a search with the paste's most specific
	// lines found; empty from Classify, filled by the service that answers
	// pastes (see SearchQuery).
	Related []Related `json:"related"`
	// Answers are the tree answers the paste implies, by question id:
	// those on every path to the best route's outcome, and those its
	// signals name. Pass them as Hints.Paste to Walk to land the person as
	// far into the tree as the evidence goes, with each answer marked
	// inferred.
	Answers map[string]Answer `json:"-"`
	// Specifics are the particulars the paste names for the scheduling
	// routes it matched (the taint to tolerate, the label no node has,
	// the resource short); absent when it names none.
	Specifics *Specifics `json:"specifics,omitempty"`
	// Scheduler reads the paste's scheduler message as one diagnosis when
	// it lists several reasons and the first route is one of them.
	Scheduler *SchedulerReading `json:"scheduler,omitempty"`
	// Context names the pod, namespace, node and container the paste is
	// about, for the commands that follow; absent when it names none.
	Context *Context `json:"context,omitempty"`
}

// RouteMatch is one candidate route with the playbook section that handles
// it, how sure the classifier is (0 to 1), and the lines that support it.
type RouteMatch struct {
	Route      string     `json:"route"`
	Playbook   string     `json:"playbook"`
	Section    string     `json:"section"`
	Confidence float64    `json:"confidence"`
	Evidence   []Evidence `json:"evidence"`
}

// hit is one signal matching one line, with the weight it carries there.
type hit struct {
	sig    *Signal
	weight float64
	line   int // 0-based
	text   string
	at     int // byte offset of the match in text
	// alone is false for a hit that cannot make a route on its own: a
	// line of configuration (a probe's settings, declared limits) says
	// what the pod would do, not that it failed, and the preemption tail
	// after a scheduler's own reasons is the routine "nothing to evict".
	// Such a hit still strengthens a route that other evidence found.
	alone bool
}

// Classify finds every signal in a pasted text and ranks the routes they
// imply. It accepts anything: kubectl output, event tables, logs, tracebacks,
// alerts, with any language around the machine text.
func (c *Catalog) Classify(text string) Result {
	lines := splitLines(text)
	var hits []hit
	consumed := make([]bool, len(lines))
	lowers := make([]string, len(lines))
	for i, l := range lines {
		lowers[i] = lowerASCII(l) // offsets into it are offsets into l
	}
	gpu := slices.ContainsFunc(lines, gpuRequest.MatchString)
	var msgs []schedMessage
	for i := range lines {
		if consumed[i] || !isSchedulerLine(lowers[i]) {
			continue
		}
		m := parseScheduler(lines, i)
		if len(m.Reasons) == 0 {
			continue
		}
		for j := m.First; j <= m.Last; j++ {
			consumed[j] = true
		}
		msgs = append(msgs, m)
		hits = append(hits, c.schedulerHits(m, gpu)...)
	}
	cand := make([]bool, len(c.Signals))
	var idx []int
	config := configLines(lines)
	for i, l := range lines {
		if consumed[i] {
			continue
		}
		hits = append(hits, c.fragmentHits(l, lowers[i], i, gpu)...)
		idx = c.filter.candidates(lowers[i], cand, idx)
		for _, k := range idx {
			cand[k] = false
			s := c.Signals[k]
			if at := s.find(l, lowers[i]); at >= 0 {
				hits = append(hits, hit{sig: s, weight: s.Weight, line: i, text: l, at: at, alone: !config[i]})
			}
		}
	}
	if _, ok := c.routes[resourceMismatch.Route]; ok {
		hits = append(hits, resourceHits(lines)...)
	}
	hits = append(hits, tableHits(lines, c.routes)...)
	res := c.rank(hits)
	if sp := specificsFor(res.Routes, text); !sp.Empty() {
		res.Specifics = &sp
	}
	if len(res.Routes) > 0 {
		if rd := c.readScheduler(msgs); rd.Names(res.Routes[0].Route) {
			res.Scheduler = rd
		}
		res.Context = ReadContext(lines)
	}
	return res
}

// configLine is a line that declares how the pod is set up rather than
// reporting what happened: kubectl describe's probe settings
// ("Readiness: http-get http://:8000/health delay=30s ...") and a manifest's
// probe fields. configBlock opens a describe or manifest block of declared
// resources, whose lines are configuration too.
var (
	configLine  = regexp.MustCompile(`^\s*(?:(?:Liveness|Readiness|Startup):\s+(?:http-get|exec|tcp-socket|grpc)\b|-?\s*(?:readinessProbe|livenessProbe|startupProbe|initialDelaySeconds|periodSeconds|timeoutSeconds|failureThreshold|successThreshold):)`)
	configBlock = regexp.MustCompile(`^(\s*)(?:Limits|Requests|limits|requests):\s*$`)
)

// configLines marks the lines of a paste that are configuration.
func configLines(lines []string) []bool {
	out := make([]bool, len(lines))
	block := -1 // indent of the open resource block
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		if block >= 0 && (strings.TrimSpace(l) == "" || indent <= block) {
			block = -1
		}
		if m := configBlock.FindStringSubmatch(l); m != nil {
			block, out[i] = len(m[1]), true
			continue
		}
		out[i] = block >= 0 || configLine.MatchString(l)
	}
	return out
}

// specificsFor reads the paste's particulars when a route they concern
// matched, and keeps those of the matched routes only.
func specificsFor(routes []RouteMatch, text string) Specifics {
	var out Specifics
	all, read := Specifics{}, false
	for _, r := range routes {
		switch r.Route {
		case "pending/untolerated-taint", "pending/node-selector-mismatch", "pending/insufficient-resources":
			if !read {
				all, read = PasteSpecifics(text), true
			}
			part := all.For(r.Route)
			out.Taints = append(out.Taints, part.Taints...)
			out.Selectors = append(out.Selectors, part.Selectors...)
			out.Shortfalls = append(out.Shortfalls, part.Shortfalls...)
		}
	}
	return out
}

// splitLines applies the input limits and cuts the text into lines.
func splitLines(text string) []string {
	if len(text) > MaxInput {
		text = text[:MaxInput]
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) > MaxLines {
		lines = lines[:MaxLines]
	}
	for i, l := range lines {
		if len(l) > MaxLineLen {
			lines[i] = l[:MaxLineLen]
		}
	}
	return lines
}

// gpuRequest finds an accelerator request or capacity line ("nvidia.com/gpu:
// 1" in describe output or YAML), which says the paste is about a GPU
// workload.
var (
	gpuRequest      = regexp.MustCompile(`^[\s-]*"?(nvidia\.com|amd\.com)/gpu"?:\s+"?[1-9]`)
	insufficientGPU = regexp.MustCompile(`^Insufficient (nvidia\.com|amd\.com)/`)
)

// schedulerHits weighs the reasons of one scheduler message. Reasons that
// only describe nodes the pod was never meant for (its own node selector,
// the control plane's taint) step back when anything else is listed: the
// other reasons are what blocks the nodes the pod wants. A lone node with a
// taint whose key the message hides is taken for the control plane too,
// unless the paste is about a GPU pod: a small GPU pool is one tainted node.
func (c *Catalog) schedulerHits(m schedMessage, gpu bool) []hit {
	type matched struct {
		r         reason
		sig       *Signal
		bystander bool
	}
	var found []matched
	listed := 0
	for _, r := range m.Reasons {
		if !r.Preemption && r.Count > 0 {
			listed++
		}
		// Only a pod that requests a GPU is short of one.
		gpu = gpu || insufficientGPU.MatchString(r.Text)
	}
	others, head := false, false
	for _, r := range m.Reasons {
		head = head || !r.Preemption
	}
	for _, r := range m.Reasons {
		scope := ScopeScheduler
		if r.Preemption {
			scope = ScopePreemption
		}
		for _, s := range c.Signals {
			if s.Scope == scope && s.find(r.Text, lowerASCII(r.Text)) >= 0 {
				by := s.Bystander || (s.LoneBystander && r.Count == 1 && listed > 1 && !gpu)
				found = append(found, matched{r, s, by})
				if !by && !s.Context && !r.Preemption {
					others = true
				}
				break
			}
		}
	}
	var hits []hit
	for _, f := range found {
		w := f.sig.Weight
		if gpu && f.sig.GPUWeight > 0 {
			w = f.sig.GPUWeight
		}
		if f.bystander && others {
			w *= 0.3
		}
		// The preemption tail only reports that evicting lower-priority
		// pods would not help; after the scheduler's own reasons that is
		// routine, and a priority class in the paste (context) is what
		// makes it a lead.
		alone := !(f.r.Preemption && head)
		hits = append(hits, hit{sig: f.sig, weight: w, line: m.First, text: m.Text, at: max(0, strings.Index(m.Text, f.r.Text)), alone: alone})
	}
	return hits
}
