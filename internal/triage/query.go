package triage

import (
	"regexp"
	"strings"
)

// Match levels of a Result: how far the classifier's answer can be trusted.
const (
	// MatchConfident: the best route rests on a message the software
	// prints (a signal of weight MatchConfidentAt or more).
	MatchConfident = "confident"
	// MatchWeak: only words operators write, or weak messages, point at
	// the routes; they are the closest guesses, not a diagnosis.
	MatchWeak = "weak"
	// MatchNone: nothing in the text is known.
	MatchNone = "none"
	// MatchConfidentAt is the confidence from which an answer is
	// confident. Exact messages weigh 0.6 and more; the words tier of the
	// catalogue stays below.
	MatchConfidentAt = 0.6
)

// Related is an incident or playbook of the library that a search with the
// paste's most specific lines found; it is filled in by the service that
// answers a paste (Classify itself is pure and leaves it empty).
type Related struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"` // "incident" or "playbook"
	Title string `json:"title"`
	URL   string `json:"url"`
}

func matchLevel(routes []RouteMatch) string {
	switch {
	case len(routes) == 0:
		return MatchNone
	case routes[0].Confidence >= MatchConfidentAt:
		return MatchConfident
	}
	return MatchWeak
}

// maxQueryLen keeps the search query well inside the search's own limit.
const maxQueryLen = 400

var (
	// volatile are tokens that differ between two pastes of the same
	// failure: timestamps, durations, addresses, ids, hashes, counts.
	volatile = regexp.MustCompile(`(?i)\b\d{4}-\d{2}-\d{2}[t ]?[\d:.,z+-]*|\b\d{1,2}:\d{2}(:\d{2})?(\.\d+)?\b|\b[IEWF]\d{4}\b|\b\d+(\.\d+)?(ms|s|m|h|d|mi|gi|ki|%)\b|\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[0-9a-f]{12,}\b|\b[a-z0-9][a-z0-9-]*-[a-z0-9]{8,10}-[a-z0-9]{5}(\b|_\S*)|\b[a-z0-9][a-z0-9-]*-(\d[a-z0-9]{4}|[a-z]\d[a-z0-9]{3}|[a-z]{2}\d[a-z0-9]{2}|[a-z]{3}\d[a-z0-9]|[a-z]{4}\d)(\b|_\S*)|\(x\d+ over [^)]*\)|\b\d+\b`)
	wordRun  = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}._/'-]*`)
	// errorish finds lines worth searching when no signal matched: an
	// error, a warning, a failure, a reason in CamelCase.
	errorish  = regexp.MustCompile(`(?i)\b(error|err|fail\w*|fatal|panic|exception|refused|denied|timeout|timed out|unable|cannot|can't|couldn't|invalid|not found|no such|unhealthy|backoff|warning|killed|evicted|insufficient|exceeded|forbidden)\b`)
	camelCase = regexp.MustCompile(`\b[A-Z][a-z]+[A-Z]\w+\b`)
	stopWord  = map[string]bool{"the": true, "a": true, "an": true, "and": true, "or": true, "of": true, "to": true, "in": true,
		"on": true, "for": true, "is": true, "was": true, "be": true, "with": true, "at": true, "by": true, "from": true,
		"this": true, "that": true, "it": true, "as": true, "are": true, "not": true, "no": true, "but": true, "i": true,
		"we": true, "my": true, "our": true, "pod": true, "pods": true, "kubectl": true, "normal": true, "type": true,
		"reason": true, "age": true, "message": true, "info": true, "level": true, "msg": true, "ts": true}
)

// SearchQuery builds a library search from a paste: the lines that carry
// its evidence (or, when nothing matched, the lines that read as errors),
// without what differs from one occurrence to the next (times, addresses,
// pod hashes, counts), most specific words first and each word once.
func SearchQuery(text string, res Result) string {
	lines := splitLines(text)
	var picked []string
	seenLine := map[int]bool{}
	for _, r := range res.Routes {
		for _, e := range r.Evidence {
			if i := e.LineNo - 1; i >= 0 && i < len(lines) && !seenLine[i] {
				seenLine[i] = true
				picked = append(picked, lines[i])
			}
		}
	}
	if len(picked) == 0 {
		for i, l := range lines {
			if len(picked) == 8 {
				break
			}
			if !seenLine[i] && (errorish.MatchString(l) || camelCase.MatchString(l)) {
				seenLine[i] = true
				picked = append(picked, l)
			}
		}
	}
	var words []string
	seen := map[string]bool{}
	size := 0
	for _, l := range picked {
		l = volatile.ReplaceAllString(l, " ")
		for _, w := range wordRun.FindAllString(l, -1) {
			w = strings.Trim(w, "._/'-")
			lw := strings.ToLower(w)
			if len(w) < 3 || stopWord[lw] || seen[lw] {
				continue
			}
			if size+len(w)+1 > maxQueryLen {
				return strings.Join(words, " ")
			}
			seen[lw] = true
			words = append(words, w)
			size += len(w) + 1
		}
	}
	return strings.Join(words, " ")
}

// maxProseLines is how many lines a paste may have and still read as
// something a person typed rather than output a program printed.
const maxProseLines = 3

// Prose reports whether text reads as a person's description of a failure
// ("GPU 노드에 파드가 안 올라가요", "pods keep restarting after the
// deploy") rather than output: a few lines, none of which reads as an
// error line or carries a CamelCase reason, the lines SearchQuery would
// pick from output.
func Prose(text string) bool {
	lines := 0
	for _, l := range splitLines(text) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if lines > maxProseLines || errorish.MatchString(l) || camelCase.MatchString(l) {
			return false
		}
	}
	return lines > 0
}
