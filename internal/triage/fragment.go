package triage

import (
	"regexp"
	"strings"
)

// Operators often quote a scheduler reason without the message around it:
// "Pod events show: 1 node(s) had no available volume zone", a title that
// reads "pod has unbound PersistentVolumeClaims", a comment that pastes only
// "Insufficient nvidia.com/gpu". Such a line has no "0/N nodes are
// available" head for parseScheduler to find, so its pieces are matched
// against the scheduler's reason signals one by one, at a little less weight
// than inside a whole message (no other reasons to weigh them against).
const (
	fragmentFactor = 0.9
	maxFragmentLen = 160
)

// fragmentSep cuts a line into pieces that may each be one reason:
// list separators, sentence ends, quotes and the colon after a label.
var fragmentSep = regexp.MustCompile(`, |; |\. |: |["` + "`" + `\x{201C}\x{201D}]|\s-\s`)

// fragmentFilter returns the lower-case literals one of which every
// scheduler or preemption signal needs, or nil when some signal can match
// without any (then every line is cut into fragments).
func fragmentFilter(sigs []*Signal) []string {
	var lits []string
	for _, s := range sigs {
		if s.Scope == ScopeLine {
			continue
		}
		switch {
		case s.lit != "":
			lits = append(lits, s.lit)
		case s.anchor != "":
			lits = append(lits, s.anchor)
		case s.anyOf != nil:
			lits = append(lits, s.anyOf...)
		default:
			return nil
		}
	}
	return lits
}

// fragmentHits matches the pieces of one line that is not part of a parsed
// scheduler message against the scheduler's reason signals.
func (c *Catalog) fragmentHits(line, lower string, i int, gpu bool) []hit {
	if c.fragmentLits != nil && !containsAny(lower, c.fragmentLits) {
		return nil
	}
	var hits []hit
	seen := map[string]bool{}
	for _, piece := range fragmentSep.Split(line, -1) {
		piece = strings.Trim(piece, " \t.,'()[]*>")
		if piece == "" || len(piece) > maxFragmentLen {
			continue
		}
		if m := countFirst.FindStringSubmatch(piece); m != nil {
			piece = m[2]
		}
		lp := lowerASCII(piece)
		for _, s := range c.Signals {
			if s.Scope == ScopeLine || seen[s.ID] {
				continue
			}
			if s.find(piece, lp) < 0 {
				continue
			}
			seen[s.ID] = true
			w := s.Weight
			if gpu && s.GPUWeight > 0 {
				w = s.GPUWeight
			}
			hits = append(hits, hit{sig: s, weight: w * fragmentFactor, line: i, text: line, at: max(0, strings.Index(line, piece)), alone: true})
			break
		}
	}
	return hits
}
