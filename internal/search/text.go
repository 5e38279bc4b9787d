package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// hasHangul reports whether s contains Korean script. It runs over every
// document when highlighting, so ASCII is skipped byte by byte.
func hasHangul(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
		i += n
	}
	return false
}

// identifierBreak marks the bytes that separate identifiers in prose and
// commands. Dots, slashes, hyphens, underscores and colons are not among
// them: they are part of nvidia.com/gpu, node.kubernetes.io/not-ready or
// k8s-device-plugin.
var identifierBreak = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n,;()[]{}<>\"'`|=") {
		t[c] = true
	}
	return t
}()

// identifiers returns the lower-cased identifier-like tokens of s: resource
// names, labels, file names, CamelCase conditions and reasons. They are
// indexed whole so that a query typing one matches it exactly, where the
// English analyzer would split nvidia.com/gpu or stem OOMKilled. It runs over
// every document at index time, hence the byte loop.
func identifiers(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !identifierBreak[s[i]] {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if tok := trimIdent(s[start:i]); isIdentifier(tok) {
				out = append(out, strings.ToLower(tok))
			}
			start = -1
		}
	}
	return out
}

// trimIdent drops sentence punctuation around a token: the full stop after
// "nvidia.com/gpu." or the colon after "reason:".
func trimIdent(tok string) string {
	return strings.Trim(tok, ".:,;!?*#$")
}

// isIdentifier reports whether tok looks like something a person would paste
// rather than an English word: it mixes letters with digits or inner
// punctuation (g5g.xlarge, libdcgm.so, nvidia.com/gpu), or mixes case past
// its first letter (AcceleratedHardwareReady, OOMKilled).
func isIdentifier(tok string) bool {
	if len(tok) < 3 {
		return false
	}
	var letter, digit, punct, lower, innerUpper bool
	for i, r := range tok {
		switch {
		case unicode.IsLower(r):
			letter, lower = true, true
		case unicode.IsUpper(r):
			letter = true
			innerUpper = innerUpper || i > 0
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r):
			digit = true
		case strings.ContainsRune("./_:-", r):
			punct = true
		default:
			return false
		}
	}
	return letter && (digit || punct || (lower && innerUpper))
}

// letterCount counts letters, for the minimum length of a typo-tolerant word.
func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
