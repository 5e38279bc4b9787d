package triage

import (
	"regexp"
	"regexp/syntax"
	"strings"

	"gopkg.in/yaml.v3"
)

// Scopes say what text a signal is matched against.
const (
	// ScopeLine signals are matched against every line of a paste.
	ScopeLine = "line"
	// ScopeScheduler signals are matched against one reason of a parsed
	// "0/N nodes are available: ..." message, such as "Insufficient cpu".
	ScopeScheduler = "scheduler"
	// ScopePreemption signals are matched against the reasons after
	// "preemption:" in the same message.
	ScopePreemption = "preemption"
)

// Signal is one named pattern from the signals catalogue: a message an
// operator sees and the route it implies. Weight is how strongly the signal
// alone points at the route, from 0 to 1; the classifier ranks routes by it.
type Signal struct {
	ID    string
	Scope string
	// Text is a literal matched case-insensitively; Regex is an RE2
	// expression (case-insensitive too). Exactly one is set.
	Text  string
	Regex string
	// Unless is an RE2 expression (case-insensitive): a line that also
	// matches it is not this signal. It keeps a broad message family off
	// the one member that says something else, such as a FailedMount whose
	// cause is the kubelet's configmap cache catching up, not a volume.
	Unless string

	Route   string
	Section string // overrides the route's section when set
	Weight  float64
	// Context signals only strengthen a route that another signal found;
	// alone they prove nothing ("Priority Class Name: high").
	Context bool
	// Bystander is for scheduler reasons that describe nodes the pod was
	// never meant to run on (its own node selector, the control plane's
	// taint). When any other reason is present the others are the blocker.
	Bystander bool
	// LoneBystander makes a scheduler reason a bystander when it counts
	// a single node among other reasons and the paste is not about a GPU
	// pod (see Catalog.schedulerHits).
	LoneBystander bool
	// GPUWeight, when set, replaces Weight for a scheduler reason in a
	// paste about a GPU pod: GPU pools are tainted by convention, so a
	// taint whose key is hidden most likely is theirs.
	GPUWeight float64
	// Answers are the question answers the signal implies, question id to
	// choice id, beyond those implied by its route.
	Answers map[string]string
	Note    string

	Path string
	Line int

	re     *regexp.Regexp
	unless *regexp.Regexp
	lit    string // lower-cased Text
	// anchor is a lower-case literal every match of re contains; lines
	// without it skip the regex, which keeps a 1 MiB paste cheap.
	anchor string
	// anyOf, for a regex without an anchor (an alternation at the top),
	// lists lower-case literals one of which every match contains; lines
	// with none of them skip the regex the same way.
	anyOf []string
}

// find returns the byte offset in line where the signal matches, or -1.
// lower is line in lower case; literal offsets are taken from it, which is
// exact for ASCII and close enough elsewhere to centre an excerpt.
func (s *Signal) find(line, lower string) int {
	at := s.match(line, lower)
	if at >= 0 && s.unless != nil && s.unless.MatchString(line) {
		return -1
	}
	return at
}

func (s *Signal) match(line, lower string) int {
	if s.re == nil {
		return strings.Index(lower, s.lit)
	}
	if s.anchor != "" && !strings.Contains(lower, s.anchor) {
		return -1
	}
	if s.anyOf != nil && !containsAny(lower, s.anyOf) {
		return -1
	}
	if loc := s.re.FindStringIndex(line); loc != nil {
		return loc[0]
	}
	return -1
}

// Explanation records that one route, once well supported, explains the
// evidence of others: a broken driver is why the device plugin finds no
// GPUs and why the pod is short of nvidia.com/gpu; an XID error is why the
// process crash-loops. The explained routes stay in the result, ranked lower.
type Explanation struct {
	Route    string
	Explains []string
	Path     string
	Line     int
}

func (d *decoder) signals(data []byte) ([]*Signal, []Explanation) {
	root := d.parse(data)
	if root == nil {
		return nil, nil
	}
	m := d.fields(root, "signals file", "signals", "explains")
	var ex []Explanation
	if e := m["explains"]; e != nil {
		if e.Kind != yaml.MappingNode {
			d.errorf(e.Line, "explains: expected a mapping of route to routes")
		}
		for i := 0; e.Kind == yaml.MappingNode && i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], e.Content[i+1]
			ex = append(ex, Explanation{Route: k.Value, Explains: d.list(v, "explains "+k.Value), Path: d.path, Line: k.Line})
		}
	}
	var out []*Signal
	for _, item := range d.seq(m, "signals", true, "signals file", root.Line) {
		f := d.fields(item, "signal", "id", "scope", "text", "regex", "route", "section",
			"weight", "gpu_weight", "context", "bystander", "lone_bystander", "answers", "note", "unless")
		s := &Signal{
			ID:            d.str(f, "id", true, "signal", item.Line),
			Scope:         d.str(f, "scope", false, "signal", item.Line),
			Text:          d.str(f, "text", false, "signal", item.Line),
			Regex:         d.str(f, "regex", false, "signal", item.Line),
			Unless:        d.str(f, "unless", false, "signal", item.Line),
			Route:         d.str(f, "route", true, "signal", item.Line),
			Section:       d.str(f, "section", false, "signal", item.Line),
			Weight:        d.number(f, "weight", "signal", item.Line),
			Context:       d.boolean(f, "context", "signal"),
			Bystander:     d.boolean(f, "bystander", "signal"),
			LoneBystander: d.boolean(f, "lone_bystander", "signal"),
			GPUWeight:     d.optNumber(f, "gpu_weight", "signal"),
			Note:          d.str(f, "note", false, "signal", item.Line),
			Path:          d.path,
			Line:          item.Line,
		}
		what := "signal " + s.ID
		if a := f["answers"]; a != nil {
			s.Answers = map[string]string{}
			for k, v := range d.fields(a, what+" answers", keysOf(a)...) {
				if v.Kind != yaml.ScalarNode || v.Value == "" {
					d.errorf(v.Line, "%s: answer for %q must be a choice id", what, k)
				}
				s.Answers[k] = v.Value
			}
		}
		if !d.compile(s, what) {
			continue
		}
		out = append(out, s)
	}
	return out, ex
}

// compile checks a signal's own fields and prepares its matcher. It reports
// false when the signal cannot be used at all.
func (d *decoder) compile(s *Signal, what string) bool {
	ok := s.ID != "" && s.Route != ""
	switch s.Scope {
	case "":
		s.Scope = ScopeLine
	case ScopeLine, ScopeScheduler, ScopePreemption:
	default:
		d.errorf(s.Line, "%s: scope must be line, scheduler or preemption, not %q", what, s.Scope)
		ok = false
	}
	if s.Weight <= 0 || s.Weight > 1 || s.GPUWeight < 0 || s.GPUWeight > 1 {
		d.errorf(s.Line, "%s: weight must be above 0 and at most 1", what)
		ok = false
	}
	if s.Unless != "" {
		re, err := regexp.Compile("(?i)" + s.Unless)
		if err != nil {
			d.errorf(s.Line, "%s: bad unless regex: %v", what, err)
			ok = false
		}
		s.unless = re
	}
	switch {
	case (s.Text == "") == (s.Regex == ""):
		d.errorf(s.Line, "%s: needs exactly one of text and regex", what)
		ok = false
	case s.Text != "":
		s.lit = strings.ToLower(s.Text)
	default:
		re, err := regexp.Compile("(?i)" + s.Regex)
		if err != nil {
			d.errorf(s.Line, "%s: bad regex: %v", what, err)
			ok = false
		}
		s.re = re
		if parsed, err := syntax.Parse("(?i)"+s.Regex, syntax.Perl); err == nil {
			simple := parsed.Simplify()
			s.anchor = requiredLiteral(simple)
			alts := requiredAlternatives(simple)
			// The parser factors common prefixes out of alternations
			// ("CUDA error|CUBLAS" becomes "CU(DA error|BLAS)"), which
			// leaves short literals; whole leading literals filter better.
			if lead := leadingLiterals(simple); lead != nil && (alts == nil || shortest(lead) > shortest(alts)) {
				alts = lead
			}
			if alts != nil && shortest(alts) > len(s.anchor) {
				s.anchor = ""
			}
			if s.anchor == "" {
				s.anyOf = alts
			}
		}
	}
	return ok
}

// requiredLiteral returns a lower-case literal that every match of re
// contains, or "" when it cannot tell (an alternation at the top, say).
// Every signal is compiled case-insensitively, so lower-casing is exact.
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.ToLower(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// keysOf lists a mapping's keys, for fields() on free-form maps.
func keysOf(n *yaml.Node) []string {
	var ks []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		ks = append(ks, n.Content[i].Value)
	}
	return ks
}

// requiredAlternatives returns lower-case literals one of which every match
// of re contains, or nil when it cannot tell. It covers what
// requiredLiteral cannot: alternations, where each branch has a literal of
// its own.
func requiredAlternatives(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); l != "" {
				out = append(out, l)
				continue
			}
			alts := requiredAlternatives(sub)
			if alts == nil {
				return nil // this branch can match without any literal
			}
			out = append(out, alts...)
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return requiredAlternatives(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredAlternatives(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part of a concatenation is required; keep the part whose
		// shortest literal is longest, as the most selective.
		var best []string
		for _, sub := range re.Sub {
			if alts := requiredAlternatives(sub); alts != nil && (best == nil || shortest(alts) > shortest(best)) {
				best = alts
			}
		}
		return best
	}
	return nil
}

// maxLeading caps how many literals leadingLiterals combines.
const maxLeading = 64

// leadingLiterals returns lower-case literals one of which every match of
// re starts with (after zero-width assertions), joining a literal prefix to
// the literals that follow it; nil when it cannot tell.
func leadingLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture:
		return leadingLiterals(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := leadingLiterals(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		if len(out) > maxLeading {
			return nil
		}
		return out
	case syntax.OpConcat:
		subs := re.Sub
		for len(subs) > 0 && zeroWidth(subs[0].Op) {
			subs = subs[1:]
		}
		if len(subs) == 0 {
			return nil
		}
		head := leadingLiterals(subs[0])
		if head == nil || subs[0].Op != syntax.OpLiteral || len(subs) == 1 {
			return head
		}
		tail := leadingLiterals(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs[1:]})
		if tail == nil || len(tail) > maxLeading {
			return head
		}
		out := make([]string, 0, len(tail))
		for _, t := range tail {
			out = append(out, head[0]+t)
		}
		return out
	}
	return nil
}

func zeroWidth(op syntax.Op) bool {
	switch op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return true
	}
	return false
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}
