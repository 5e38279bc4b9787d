package triage

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
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
	// Answers are the tree answers the paste implies, by question id:
	// those on every path to the best route's outcome, and those its
	// signals name. Pass them as Hints.Paste to Walk to land the person as
	// far into the tree as the evidence goes, with each answer marked
	// inferred.
	Answers map[string]Answer `json:"-"`
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
		lowers[i] = strings.ToLower(l)
	}
	gpu := slices.ContainsFunc(lines, gpuRequest.MatchString)
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
		hits = append(hits, c.schedulerHits(m, gpu)...)
	}
	for i, l := range lines {
		if consumed[i] {
			continue
		}
		for _, s := range c.Signals {
			if s.Scope != ScopeLine {
				continue
			}
			if at := s.find(l, lowers[i]); at >= 0 {
				hits = append(hits, hit{sig: s, weight: s.Weight, line: i, text: l, at: at})
			}
		}
	}
	return c.rank(hits)
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
		if !r.Preemption {
			listed++
		}
		// Only a pod that requests a GPU is short of one.
		gpu = gpu || insufficientGPU.MatchString(r.Text)
	}
	others := false
	for _, r := range m.Reasons {
		scope := ScopeScheduler
		if r.Preemption {
			scope = ScopePreemption
		}
		for _, s := range c.Signals {
			if s.Scope == scope && s.find(r.Text, strings.ToLower(r.Text)) >= 0 {
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
		hits = append(hits, hit{sig: f.sig, weight: w, line: m.First, text: m.Text, at: max(0, strings.Index(m.Text, f.r.Text))})
	}
	return hits
}

// rank turns hits into routes. A route scores its strongest signal, a little
// more for each further distinct signal (corroboration), plus the strongest
// context signal; context alone never makes a route.
func (c *Catalog) rank(hits []hit) Result {
	type acc struct {
		main, ctx float64
		signals   map[string]bool
		hits      []hit
		// sections sums, per section a signal names, the weight of
		// each distinct signal: agreeing signals choose the section.
		sections map[string]map[string]float64
	}
	byRoute := map[string]*acc{}
	for _, h := range hits {
		a := byRoute[h.sig.Route]
		if a == nil {
			a = &acc{signals: map[string]bool{}, sections: map[string]map[string]float64{}}
			byRoute[h.sig.Route] = a
		}
		a.hits = append(a.hits, h)
		if h.sig.Context {
			a.ctx = math.Max(a.ctx, h.weight)
			continue
		}
		a.signals[h.sig.ID] = true
		a.main = math.Max(a.main, h.weight)
		if h.sig.Section != "" {
			if a.sections[h.sig.Section] == nil {
				a.sections[h.sig.Section] = map[string]float64{}
			}
			a.sections[h.sig.Section][h.sig.ID] = math.Max(a.sections[h.sig.Section][h.sig.ID], h.weight)
		}
	}
	scores := map[string]float64{}
	for route, a := range byRoute {
		if a.main > 0 {
			scores[route] = confidence(a.main, len(a.signals), a.ctx)
		}
	}
	explained := c.explained(scores)
	res := Result{Routes: []RouteMatch{}}
	for route, a := range byRoute {
		if a.main == 0 {
			continue
		}
		home, ok := c.routes[route]
		if !ok {
			continue // lint reports signals whose route has no outcome
		}
		rm := RouteMatch{
			Route:      route,
			Playbook:   home.Outcome.Playbook,
			Section:    home.Outcome.Section,
			Confidence: scores[route],
			Evidence:   evidence(a.hits),
		}
		if explained[route] {
			rm.Confidence = math.Round(rm.Confidence*explainedFactor*100) / 100
		}
		if sec := bestSection(a.sections); sec != "" {
			rm.Section = sec
		}
		res.Routes = append(res.Routes, rm)
	}
	sort.SliceStable(res.Routes, func(i, j int) bool {
		a, b := res.Routes[i], res.Routes[j]
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		return routeOrder(a.Route) < routeOrder(b.Route)
	})
	if len(res.Routes) > 0 {
		res.Answers = c.inferAnswers(res.Routes[0], byRoute[res.Routes[0].Route].hits)
	}
	return res
}

// A route whose confidence reaches explainsAt explains the routes listed
// for it in the catalogue's explanations; their confidence is multiplied by
// explainedFactor. The XID error at the bottom of a crash-loop dump thereby
// outranks the crash loop, and a broken driver outranks the device plugin
// that cannot find it.
const (
	explainsAt      = 0.7
	explainedFactor = 0.6
)

// explained returns the routes that a well-supported route explains. Scores
// are taken before any demotion, so the order of explanations does not
// matter and chains do not compound.
func (c *Catalog) explained(scores map[string]float64) map[string]bool {
	out := map[string]bool{}
	for _, e := range c.Explanations {
		if scores[e.Route] < explainsAt {
			continue
		}
		for _, r := range e.Explains {
			if _, ok := scores[r]; ok {
				out[r] = true
			}
		}
	}
	return out
}

// confidence is the strongest signal's weight, plus a little for each
// further distinct signal that agrees (at most 0.12), plus the strongest
// context signal, rounded to two decimals and kept below 1: a paste never
// proves a cause.
func confidence(best float64, distinct int, ctx float64) float64 {
	c := best + math.Min(0.12, 0.04*float64(distinct-1)) + ctx
	return math.Round(math.Min(0.99, c)*100) / 100
}

// bestSection picks the section whose signals weigh most together; ties go
// to the alphabetically first so results are stable.
func bestSection(sections map[string]map[string]float64) string {
	best, bestW := "", 0.0
	for sec, sigs := range sections {
		w := 0.0
		for _, v := range sigs {
			w += v
		}
		if w > bestW || (w == bestW && sec < best) {
			best, bestW = sec, w
		}
	}
	return best
}

// evidence keeps the strongest lines of a route, one per line, in the order
// they appear in the paste.
func evidence(hits []hit) []Evidence {
	hs := slices.Clone(hits)
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].weight > hs[j].weight })
	seen := map[int]bool{}
	var keep []hit
	for _, h := range hs {
		if seen[h.line] || len(keep) == maxEvidence {
			continue
		}
		seen[h.line] = true
		keep = append(keep, h)
	}
	sort.SliceStable(keep, func(i, j int) bool { return keep[i].line < keep[j].line })
	out := make([]Evidence, len(keep))
	for i, h := range keep {
		out[i] = Evidence{Signal: h.sig.ID, LineNo: h.line + 1, Text: excerpt(h.text, h.at)}
	}
	return out
}

// excerpt returns the line, or for a long line the evidenceLen bytes around
// the match at offset at, marked with ellipses where it was cut. Cuts never
// split a UTF-8 sequence.
func excerpt(line string, at int) string {
	line = strings.TrimRight(line, " \t")
	trimmed := strings.TrimLeft(line, " \t")
	at -= len(line) - len(trimmed)
	line = trimmed
	if len(line) <= evidenceLen {
		return line
	}
	start := min(max(0, at-evidenceLen/4), len(line)-evidenceLen)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+evidenceLen)
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	out := line[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}

// routeOrder breaks ties by the order of Routes, which follows the
// playbooks' own order (Pending causes A to H, GPU layers 1 to 5, ...).
func routeOrder(r string) int {
	if i := slices.Index(Routes, r); i >= 0 {
		return i
	}
	return len(Routes)
}
