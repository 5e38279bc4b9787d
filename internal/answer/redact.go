package answer

import (
	"regexp"
	"strings"
)

// Mark replaces every secret Redact removes. It is plain text so that it
// survives a share link, the paste box and a terminal alike.
const Mark = "[redacted]"

// secretShapes are strings that are secrets wherever they stand, by their
// published prefixes and shapes. Each replaces the whole match with Mark,
// except where a group keeps its harmless lead ("Bearer ", "user:").
var secretShapes = []struct {
	re   *regexp.Regexp
	keep string // replacement: Mark after what the expression's groups keep
	// digit, when set, redacts only a match with a digit in it: prose
	// ("Basic authentication") has none, credentials nearly always do.
	digit bool
}{
	// A PEM private key spans lines; it goes whole.
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), "", false},
	// Authorization headers and tokens printed after the scheme.
	{regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{12,}`), "${1}${2}", true},
	// Credentials in a URL: scheme://user:password@host keeps the user.
	{regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+:)[^/\s@]+@`), "${1}", false},
	// JSON Web Tokens (service account tokens, OIDC id tokens).
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), "", false},
	// Hugging Face, GitHub, OpenAI-style, Slack and AWS keys by prefix.
	{regexp.MustCompile(`\bhf_[A-Za-z0-9]{16,}`), "", false},
	{regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`), "", false},
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), "", false},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), "", false},
	{regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), "", false},
}

// secretPair is key=value or key: value where the key names a secret
// (password, token, api key, secret, credentials): the key stays, the value
// goes. The key must end in the secret's word, so max_num_batched_tokens=8192
// and "Tolerations:" are left alone.
var secretPair = regexp.MustCompile(`(?i)(\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|credentials?)"?\s*[=:]\s*"?)([^\s"'&,;]+)`)

// envHeader starts the Environment block of a container in kubectl
// describe pod; every "NAME: value" line indented below it is a variable.
var (
	envHeader = regexp.MustCompile(`^(\s*)Environment:\s*(.*)$`)
	envEntry  = regexp.MustCompile(`^(\s+[A-Za-z_][A-Za-z0-9_.-]*:\s+)(\S.*)$`)
)

// Redact removes the secrets a paste may carry before it is classified,
// shown, linked, logged or searched: the values of a describe's
// Environment: entries, and token- and key-shaped strings anywhere. It
// returns the text with each secret replaced by Mark and how many were
// replaced. The lines the classifier reads (events, messages, states) hold
// no such values and come through unchanged. docs/redaction.md lists what is
// removed.
func Redact(text string) (string, int) {
	n := 0
	text = redactEnvironment(text, &n)
	for _, s := range secretShapes {
		text = s.re.ReplaceAllStringFunc(text, func(m string) string {
			if s.digit && !strings.ContainsAny(m, "0123456789") {
				return m
			}
			n++
			if s.keep == "" {
				return Mark
			}
			return s.re.ReplaceAllString(m, s.keep) + Mark
		})
	}
	return redactPairs(text, &n), n
}

// redactPairs replaces the values of secretPair. A pair that starts its line
// (a setting, a flag, a YAML key) or is written with "=" is always a secret;
// one in the middle of a sentence after ":" only when its value looks like
// one (a digit in it, or 16 characters or more): "failed to get token: exit
// status 1" keeps its words.
func redactPairs(text string, n *int) string {
	var b strings.Builder
	last := 0
	for _, m := range secretPair.FindAllStringSubmatchIndex(text, -1) {
		key, val := text[m[2]:m[3]], text[m[4]:m[5]]
		if isPlaceholder(val) {
			continue
		}
		lineStart := strings.LastIndexByte(text[:m[0]], '\n') + 1
		lead := strings.TrimLeft(text[lineStart:m[0]], " \t-\"{,")
		setting := lead == "" || strings.HasSuffix(lead, "--") || strings.Contains(key, "=")
		if !setting && !strings.ContainsAny(val, "0123456789") && len(val) < 16 {
			continue
		}
		b.WriteString(text[last:m[4]])
		b.WriteString(Mark)
		last = m[5]
		*n++
	}
	b.WriteString(text[last:])
	return b.String()
}

// isPlaceholder is a value that holds no secret: already redacted, a
// describe placeholder (<none>, <set to the key ...>), a YAML block or a
// reference to a variable.
func isPlaceholder(v string) bool {
	return strings.HasPrefix(v, Mark) || strings.HasPrefix(v, "[redacted") || strings.HasPrefix(v, "<") ||
		strings.HasPrefix(v, "{") || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "(")
}

// redactEnvironment replaces the value of every entry of an Environment:
// block. A value that only names where it comes from (<set to the key 'k'
// in secret 's'>, a field reference) is kept: it says which secret, not
// what it holds.
func redactEnvironment(text string, n *int) string {
	if !strings.Contains(text, "Environment:") {
		return text
	}
	lines := strings.Split(text, "\n")
	indent := -1 // the header's indent while inside a block
	for i, l := range lines {
		if m := envHeader.FindStringSubmatch(l); m != nil {
			indent = len(m[1])
			continue
		}
		if indent < 0 {
			continue
		}
		if strings.TrimSpace(l) == "" || len(l)-len(strings.TrimLeft(l, " \t")) <= indent {
			indent = -1
			continue
		}
		m := envEntry.FindStringSubmatch(l)
		if m == nil || isPlaceholder(strings.TrimSpace(m[2])) {
			continue
		}
		lines[i] = m[1] + Mark
		*n++
	}
	return strings.Join(lines, "\n")
}
