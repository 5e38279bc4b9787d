package triage

import (
	"math"
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
		hits = append(hits, c.schedulerHits(m)...)
	}
	for i, l := range lines {
		if consumed[i] {
			continue
		}
		for _, s := range c.Signals {
			if s.Scope == ScopeLine && s.match(l, lowers[i]) {
				hits = append(hits, hit{sig: s, weight: s.Weight, line: i, text: l})
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

// schedulerHits weighs the reasons of one scheduler message. Reasons that
// only describe nodes the pod was never meant for (its own node selector,
// the control plane's taint) step back when anything else is listed: the
// other reasons are what blocks the nodes the pod wants.
func (c *Catalog) schedulerHits(m schedMessage) []hit {
	type matched struct {
		r   reason
		sig *Signal
	}
	var found []matched
	others := false
	for _, r := range m.Reasons {
		scope := ScopeScheduler
		if r.Preemption {
			scope = ScopePreemption
		}
		for _, s := range c.Signals {
			if s.Scope == scope && s.match(r.Text, strings.ToLower(r.Text)) {
				found = append(found, matched{r, s})
				if !s.Bystander && !s.Context && !r.Preemption {
					others = true
				}
				break
			}
		}
	}
	var hits []hit
	for _, f := range found {
		w := f.sig.Weight
		if f.sig.Bystander && others {
			w *= 0.3
		}
		hits = append(hits, hit{sig: f.sig, weight: w, line: m.First, text: m.Text})
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
		section   string
		sectionW  float64
	}
	byRoute := map[string]*acc{}
	for _, h := range hits {
		a := byRoute[h.sig.Route]
		if a == nil {
			a = &acc{signals: map[string]bool{}}
			byRoute[h.sig.Route] = a
		}
		a.hits = append(a.hits, h)
		if h.sig.Context {
			a.ctx = math.Max(a.ctx, h.weight)
			continue
		}
		a.signals[h.sig.ID] = true
		a.main = math.Max(a.main, h.weight)
		if h.sig.Section != "" && h.weight > a.sectionW {
			a.section, a.sectionW = h.sig.Section, h.weight
		}
	}
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
			Confidence: confidence(a.main, len(a.signals), a.ctx),
			Evidence:   evidence(a.hits),
		}
		if a.section != "" {
			rm.Section = a.section
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

// confidence is the strongest signal's weight, plus a little for each
// further distinct signal that agrees (at most 0.12), plus the strongest
// context signal, rounded to two decimals and kept below 1: a paste never
// proves a cause.
func confidence(best float64, distinct int, ctx float64) float64 {
	c := best + math.Min(0.12, 0.04*float64(distinct-1)) + ctx
	return math.Round(math.Min(0.99, c)*100) / 100
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
		out[i] = Evidence{Signal: h.sig.ID, LineNo: h.line + 1, Text: clip(strings.TrimSpace(h.text))}
	}
	return out
}

// clip shortens s to evidenceLen bytes without splitting a UTF-8 rune.
func clip(s string) string {
	if len(s) <= evidenceLen {
		return s
	}
	cut := evidenceLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// routeOrder breaks ties by the order of Routes, which follows the
// playbooks' own order (Pending causes A to H, GPU layers 1 to 5, ...).
func routeOrder(r string) int {
	if i := slices.Index(Routes, r); i >= 0 {
		return i
	}
	return len(Routes)
}
