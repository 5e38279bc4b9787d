package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"casebook/internal/bench/corpus"
)

type corpusProfile = corpus.Profile

// thousands writes n with comma separators: 10000 → 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func secs(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f ms", f)
	case f >= 10:
		return fmt.Sprintf("%.1f ms", f)
	case f >= 1:
		return fmt.Sprintf("%.2f ms", f)
	}
	return fmt.Sprintf("%.3f ms", f)
}

func pair(d Dist) string { return ms(d.P50) + " / " + ms(d.P99) }

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func kib(b int64) string {
	if b < 1<<10 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}

// exponent is k in y ∝ x^k through (x1, y1) and (x2, y2).
func exponent(x1, y1, x2, y2 float64) string {
	if x1 <= 0 || x2 <= x1 || y1 <= 0 || y2 <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", math.Log(y2/y1)/math.Log(x2/x1))
}

func list(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, "; ")
}
