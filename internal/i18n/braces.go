package i18n

import (
	"strings"

	"github.com/nicksnyder/go-i18n/v2/i18n/template"
)

// braces is go-i18n's template parser for {name} placeholders. A brace
// that does not open a placeholder (a name of letters, digits and
// underscores) is kept as text, so "{nvidia.com/gpu: present}" survives.
type braces struct{}

func (braces) Cacheable() bool { return true }

func (braces) Parse(src, _, _ string) (template.ParsedTemplate, error) {
	return bracesTemplate(splitPlaceholders(src)), nil
}

type segment struct{ text, name string }

type bracesTemplate []segment

// Execute fills the placeholders from a map of strings; a placeholder
// without a value stays as written.
func (t bracesTemplate) Execute(data any) (string, error) {
	vals, _ := data.(map[string]string)
	var b strings.Builder
	for _, s := range t {
		if s.name == "" {
			b.WriteString(s.text)
			continue
		}
		if v, ok := vals[s.name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(s.text)
		}
	}
	return b.String(), nil
}

func splitPlaceholders(src string) []segment {
	var out []segment
	for {
		i := strings.IndexByte(src, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(src[i:], '}')
		if j < 0 {
			break
		}
		name := src[i+1 : i+j]
		if !isName(name) {
			out = append(out, segment{text: src[:i+1]})
			src = src[i+1:]
			continue
		}
		if i > 0 {
			out = append(out, segment{text: src[:i]})
		}
		out = append(out, segment{text: src[i : i+j+1], name: name})
		src = src[i+j+1:]
	}
	if src != "" {
		out = append(out, segment{text: src})
	}
	return out
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
