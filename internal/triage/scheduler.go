package triage

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// A scheduler message lists one reason per group of nodes:
//
//	0/6 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu,
//	3 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are
//	available: 6 Preemption is not helpful for scheduling.
//
// (framework.FitError in pkg/scheduler/framework/types.go). The cluster
// autoscaler repeats the list in "pod didn't trigger scale-up: ...", and
// schedulers before 1.10 wrote "No nodes are available that match all of
// the following predicates:: Insufficient cpu (2), PodToleratesNodeTaints
// (1)." The reasons are parsed one by one so that the classifier can weigh
// them against each other instead of matching the whole line.
var (
	// Volcano's FitErrors say "0/3 nodes are unavailable: 3 Insufficient cpu."
	// in the same shape (pkg/scheduler/api/unschedule_info.go).
	fitHead     = regexp.MustCompile(`(?i)(\d+)/(\d+) nodes are (?:un)?available:?`)
	scaleUpHead = regexp.MustCompile(`(?i)pod didn't trigger scale-up(?: \([^)]*\))?:`)
	// Before 1.7 the scheduler wrote "pod (x) failed to fit in any node\n
	// fit failure summary on nodes : MatchNodeSelector (2), PodToleratesNodeTaints (1)".
	legacyHead = regexp.MustCompile(`(?i)no nodes are available that match all of the (?:following )?predicates:+|fit failure summary on nodes\s*:`)
	countFirst = regexp.MustCompile(`^(\d+) (.+)$`)
	countLast  = regexp.MustCompile(`^(.+?) \((\d+)\)$`)
	// Sentences the scheduler appends that are neither reasons nor
	// preemption: DRA's PostFilter ("no new claims to deallocate") and
	// the "still not schedulable" prefix of newer preemption messages.
	fitNoise = regexp.MustCompile(`(?i)(no new claims to deallocate|still not schedulable)[,.]?`)
)

// reason is one "<count> <text>" item of a scheduler message.
type reason struct {
	Count      int
	Text       string
	Preemption bool // listed after "preemption:"
}

// schedMessage is a parsed scheduler message and the lines it spans.
type schedMessage struct {
	Total   int
	Reasons []reason
	First   int // index of the first line
	Last    int // index of the last line
	Text    string
}

// isSchedulerLine reports whether a lower-cased line starts a scheduler
// message.
func isSchedulerLine(lower string) bool {
	return strings.Contains(lower, "nodes are available") ||
		strings.Contains(lower, "nodes are unavailable") ||
		strings.Contains(lower, "didn't trigger scale-up") ||
		strings.Contains(lower, "no nodes are available that match") ||
		strings.Contains(lower, "fit failure summary on nodes")
}

// parseScheduler reads the message that starts on lines[i], joining the
// continuation lines of a wrapped event (describe output and terminals cut
// long messages; the next line then starts with a count or follows a
// trailing comma).
func parseScheduler(lines []string, i int) schedMessage {
	m := schedMessage{First: i, Last: i}
	text := strings.TrimSpace(lines[i])
	for j := i + 1; j < len(lines) && j <= i+4; j++ {
		next := strings.TrimSpace(lines[j])
		if next == "" || !continues(text, next) {
			break
		}
		text += " " + next
		m.Last = j
	}
	text = cutAtHumanScript(text)
	m.Text = text

	body := ""
	lower := lowerASCII(text)
	if k := strings.Index(lower, "preemption:"); k >= 0 && !fitHead.MatchString(text[:k]) {
		// Only the tail was pasted ("preemption: 0/5 nodes are
		// available: 5 No preemption victims found for incoming pod."),
		// sometimes with the last reasons of the head before it
		// ("Insufficient nvidia.com/gpu. preemption: 0/1 nodes are ...").
		tail := text[k+len("preemption:"):]
		if loc := fitHead.FindStringSubmatchIndex(tail); loc != nil {
			m.Total, _ = strconv.Atoi(tail[loc[4]:loc[5]])
			tail = tail[loc[1]:]
		}
		head := text[:k]
		if c := strings.LastIndex(head, ": "); c >= 0 {
			head = head[c+2:]
		}
		m.Reasons = append(headReasons(head, m.Total), splitReasons(tail, m.Total, true)...)
		return m
	}
	if loc := fitHead.FindStringSubmatchIndex(text); loc != nil {
		m.Total, _ = strconv.Atoi(text[loc[4]:loc[5]])
		body = text[loc[1]:]
	} else if loc := scaleUpHead.FindStringIndex(text); loc != nil {
		body = text[loc[1]:]
	} else if loc := legacyHead.FindStringIndex(text); loc != nil {
		body = text[loc[1]:]
	} else {
		return m
	}
	head, tail := body, ""
	if k := strings.Index(lowerASCII(body), "preemption:"); k >= 0 {
		head, tail = body[:k], body[k+len("preemption:"):]
	}
	m.Reasons = splitReasons(head, m.Total, false)
	if loc := fitHead.FindStringIndex(tail); loc != nil {
		tail = tail[loc[1]:]
	}
	m.Reasons = append(m.Reasons, splitReasons(tail, m.Total, true)...)
	return m
}

// headReasons reads the text pasted before a lone "preemption:" tail. The
// pieces that read as scheduler reasons (a count, or "Insufficient ...")
// keep their count; the others get none (Count 0): a PreFilter status the
// scheduler prints as the whole message, without counts (DRA's "waiting for
// dynamic resource controller to create the resourceclaim"), still meets
// the scheduler signals, while the words of a sentence that happens to
// precede the tail match none and are not counted among the listed reasons.
func headReasons(s string, total int) []reason {
	var out []reason
	for _, r := range splitReasons(s, total, false) {
		if r.Count == total && !strings.HasPrefix(lowerASCII(r.Text), "insufficient ") {
			r.Count = 0
		}
		out = append(out, r)
	}
	return out
}

// continues reports whether next carries on the message in text.
func continues(text, next string) bool {
	if strings.HasSuffix(text, ",") || strings.HasSuffix(text, ":") {
		return true
	}
	if countFirst.MatchString(next) && !strings.HasSuffix(text, ".") {
		return true
	}
	lower := strings.ToLower(next)
	return strings.HasPrefix(lower, "preemption:") || strings.HasPrefix(lower, "still not schedulable") ||
		(!strings.HasSuffix(text, ".") && strings.HasPrefix(lower, "node(s)"))
}

// splitReasons cuts "1 a, 2 b, c" into reasons. Items are joined by ", "
// but an old taint reason has a comma of its own ("node(s) had taint {k:
// v}, that the pod didn't tolerate"), so a piece that does not start with a
// count belongs to the item before it. A piece without any count is a
// PreFilter message that stands for every node.
func splitReasons(s string, total int, preemption bool) []reason {
	s = fitNoise.ReplaceAllString(s, "")
	// Quotes and a full stop close the message in YAML and JSON dumps of
	// the pod's condition.
	s = strings.Trim(s, " .'\"`")
	if s == "" {
		return nil
	}
	var out []reason
	for _, piece := range strings.Split(s, ", ") {
		piece = strings.Trim(piece, " .'\"`")
		if piece == "" {
			continue
		}
		if m := countFirst.FindStringSubmatch(piece); m != nil {
			n, _ := strconv.Atoi(m[1])
			out = append(out, reason{Count: n, Text: m[2], Preemption: preemption})
			continue
		}
		if m := countLast.FindStringSubmatch(piece); m != nil {
			n, _ := strconv.Atoi(m[2])
			out = append(out, reason{Count: n, Text: m[1], Preemption: preemption})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].Text += ", " + piece
			continue
		}
		out = append(out, reason{Count: total, Text: piece, Preemption: preemption})
	}
	return out
}

// lowerASCII lower-cases ASCII letters only, so every byte offset in the
// result is the same offset in s. strings.ToLower does not keep offsets: it
// rewrites invalid UTF-8 as U+FFFD (three bytes) and some letters change
// length, and an index found in its result then slices s out of range.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// cutAtHumanScript ends a scheduler message at the first Hangul, Han or Kana
// character. The scheduler writes in ASCII and Kubernetes names are ASCII, so
// such a character starts the operator's own words, which in Korean or
// Japanese are often glued to the last reason ("4 Insufficient
// nvidia.com/gpu로 Pending"); left in, they would become part of a resource
// name.
func cutAtHumanScript(s string) string {
	for i, r := range s {
		if unicode.In(r, unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}
