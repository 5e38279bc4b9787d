package gaps

import (
	"slices"
	"strings"

	"casebook/internal/library"
)

// KoProblems reports every check without its Korean title, message or fix,
// and Korean messages whose placeholders differ from the English ones: the
// gaps page and the MCP tool speak Korean and English as equals, so a
// missing twin is a gap, not a fallback, and a placeholder missing from
// the Korean message would drop the objects a Korean reader needs.
func (s *Set) KoProblems() []library.Problem {
	var out []library.Problem
	for _, c := range s.Checks {
		add := func(field, msg string) {
			out = append(out, library.Problem{Path: c.Path, Line: c.lineOf(field), Msg: msg})
		}
		for _, f := range []struct{ en, ko, val string }{
			{"title", "title_ko", c.TitleKo},
			{"message", "message_ko", c.MessageKo},
			{"fix", "fix_ko", c.FixKo},
		} {
			if f.val == "" {
				add(f.en, "check "+c.ID+": "+f.en+" has no "+f.ko)
			}
		}
		if c.MessageKo == "" {
			continue
		}
		en, ko := placeholders(c.Message), placeholders(c.MessageKo)
		if !slices.Equal(en, ko) {
			add("message_ko", "check "+c.ID+": message_ko has placeholders "+listOrNone(ko)+", message has "+listOrNone(en))
		}
	}
	return out
}

// placeholders are the distinct {name} markers of a message, sorted.
func placeholders(msg string) []string {
	ps := placeholder.FindAllString(msg, -1)
	slices.Sort(ps)
	return slices.Compact(ps)
}

func listOrNone(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, " ")
}
