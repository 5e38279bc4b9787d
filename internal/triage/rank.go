package triage

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// rank turns hits into routes. A route scores its strongest signal, a little
// more for each further distinct signal (corroboration), plus the strongest
// context signal; context alone never makes a route.
func (c *Catalog) rank(hits []hit) Result {
	type acc struct {
		main, ctx float64
		alone     bool // a hit that can make the route by itself
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
		a.alone = a.alone || h.alone
		if h.sig.Section != "" {
			if a.sections[h.sig.Section] == nil {
				a.sections[h.sig.Section] = map[string]float64{}
			}
			a.sections[h.sig.Section][h.sig.ID] = math.Max(a.sections[h.sig.Section][h.sig.ID], h.weight)
		}
	}
	scores := map[string]float64{}
	for route, a := range byRoute {
		if a.main > 0 && !a.alone && a.ctx == 0 {
			a.main = 0 // configuration or a routine tail, and nothing else
		}
		if a.main > 0 {
			scores[route] = confidence(a.main, len(a.signals), a.ctx)
		}
	}
	explained := c.explained(scores)
	res := Result{Routes: []RouteMatch{}, Related: []Related{}}
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
	res.Match = matchLevel(res.Routes)
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
