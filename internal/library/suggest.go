package library

import (
	"fmt"
	"strings"
)

// nearest returns the candidate closest to s by edit distance, or "" when
// nothing is close enough to be a plausible typo.
func nearest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := levenshtein(ls, strings.ToLower(c))
		if strings.Contains(c, ls) || strings.Contains(ls, c) {
			d = min(d, 2)
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(3, len(s)/2) {
		return ""
	}
	return best
}

// didYouMean formats the "did you mean" tail of a message.
func didYouMean(s string, candidates []string) string {
	if n := nearest(s, candidates); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}

// Nearest is nearest for other packages (filter validation in the web layer).
func Nearest(s string, candidates []string) string { return nearest(s, candidates) }

// Levenshtein is the edit distance between a and b, counted in runes. It is
// the one "did you mean" measure of every package.
func Levenshtein(a, b string) int { return levenshtein(a, b) }

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
