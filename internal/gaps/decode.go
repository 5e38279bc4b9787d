package gaps

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"casebook/internal/library"
)

// checkFields are the keys a check file may have; anything else is a typo
// that lint reports rather than ignores.
var checkFields = []string{"id", "title", "severity", "kinds", "each", "condition", "detail", "objects", "message", "incidents", "playbooks", "fix",
	"title_ko", "message_ko", "fix_ko"}

// parseFiles reads every checks/*.yaml of fsys. A file with problems is
// left out and its problems returned; the others still load.
func parseFiles(l library.Layer) ([]*Check, []library.Problem) {
	names, err := fs.Glob(l.FS, Dir+"/*.yaml")
	var problems []library.Problem
	if err != nil {
		return nil, []library.Problem{{Path: l.Show(Dir), Msg: err.Error()}}
	}
	sort.Strings(names)
	var out []*Check
	for _, name := range names {
		data, err := fs.ReadFile(l.FS, name)
		if err != nil {
			problems = append(problems, library.Problem{Path: l.Show(name), Msg: library.ReadReason(err)})
			continue
		}
		if err := library.CheckYAML(data); err != nil {
			problems = append(problems, library.BoundProblem(l.Show(name), err))
			continue
		}
		c, ps := parseCheck(l.Show(name), data)
		problems = append(problems, ps...)
		if c != nil && len(ps) == 0 {
			out = append(out, c)
		}
	}
	return out, problems
}

// parseCheck reads one check file, by hand over yaml.Nodes so every
// problem carries the line of the field it is about.
func parseCheck(p string, data []byte) (*Check, []library.Problem) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, []library.Problem{library.YAMLProblem(p, err, "not valid YAML: ")}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, []library.Problem{{Path: p, Line: 1, Msg: "a check file is a YAML mapping (id, title, severity, ...)"}}
	}
	root := doc.Content[0]
	c := &Check{Path: p, Line: root.Line, lines: map[string]int{}}
	var problems []library.Problem
	bad := func(line int, format string, args ...any) {
		problems = append(problems, library.Problem{Path: p, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	vals := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !slices.Contains(checkFields, k.Value) {
			bad(k.Line, "unknown field %q (a check has %s)", k.Value, strings.Join(checkFields, ", "))
			continue
		}
		vals[k.Value] = v
		c.lines[k.Value] = k.Line
	}
	str := func(key string, required bool) string {
		v, ok := vals[key]
		switch {
		case !ok && required:
			bad(root.Line, "missing %q", key)
		case ok && v.Kind != yaml.ScalarNode:
			bad(v.Line, "%q must be a string", key)
		case ok:
			if required && strings.TrimSpace(v.Value) == "" {
				bad(v.Line, "%q is empty", key)
			}
			return strings.TrimSpace(v.Value)
		}
		return ""
	}
	list := func(key string, required bool) []string {
		v, ok := vals[key]
		if !ok {
			if required {
				bad(root.Line, "missing %q", key)
			}
			return nil
		}
		if v.Kind != yaml.SequenceNode {
			bad(v.Line, "%q must be a list like [a, b]", key)
			return nil
		}
		var out []string
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode || item.Value == "" {
				bad(item.Line, "%q holds something that is not a name", key)
				continue
			}
			out = append(out, item.Value)
		}
		if required && len(out) == 0 {
			bad(v.Line, "%q is empty", key)
		}
		return out
	}
	c.ID = str("id", true)
	c.Title = str("title", true)
	sev := str("severity", true)
	c.Kinds = list("kinds", true)
	c.Each = str("each", false)
	c.Condition = str("condition", false)
	c.Detail = str("detail", false)
	c.Objects = str("objects", false)
	c.Message = str("message", true)
	c.Incidents = list("incidents", false)
	c.Playbooks = list("playbooks", false)
	c.Fix = str("fix", true)
	c.TitleKo = str("title_ko", false)
	c.MessageKo = str("message_ko", false)
	c.FixKo = str("fix_ko", false)
	if sev != "" {
		s, err := ParseSeverity(sev)
		if err != nil {
			bad(c.lineOf("severity"), "%v", err)
		}
		c.Severity = s
	}
	if want := strings.TrimSuffix(path.Base(p), ".yaml"); c.ID != "" && c.ID != want {
		bad(c.lineOf("id"), "id %q does not match the file name %s.yaml", c.ID, want)
	}
	if len(c.Incidents) == 0 {
		bad(c.lineOf("incidents"), "a check must cite at least one incident that shows why it matters")
	}
	return c, problems
}
