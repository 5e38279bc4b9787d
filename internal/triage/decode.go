package triage

import (
	"fmt"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"casebook/internal/library"
)

// decoder reads yaml.Nodes by hand rather than through struct tags so that
// every problem carries the line it is on and one bad field does not hide
// the rest of the file.
type decoder struct {
	path     string
	problems []library.Problem
}

func (d *decoder) errorf(line int, format string, args ...any) {
	d.problems = append(d.problems, library.Problem{Path: d.path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// yamlLine pulls the line number out of a yaml.v3 syntax error ("yaml: line
// 7: mapping values are not allowed in this context").
var yamlLine = regexp.MustCompile(`line (\d+)`)

// parse turns the file into its top-level mapping.
func (d *decoder) parse(data []byte) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		d.errorf(line, "invalid YAML: %v", err)
		return nil
	}
	if len(doc.Content) == 0 {
		d.errorf(0, "empty file")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		d.errorf(root.Line, "expected a mapping at the top of the file")
		return nil
	}
	return root
}

// fields returns the keys of a mapping node, reporting keys that are not
// allowed; a typo in a key would otherwise silently drop content.
func (d *decoder) fields(n *yaml.Node, what string, allowed ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		d.errorf(n.Line, "%s: expected a mapping", what)
		return out
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !ok[k.Value]:
			d.errorf(k.Line, "%s: unknown field %q", what, k.Value)
		case out[k.Value] != nil:
			d.errorf(k.Line, "%s: field %q given twice", what, k.Value)
		default:
			out[k.Value] = v
		}
	}
	return out
}

// str reads a scalar string field; required fields that are missing or
// empty are reported at line (the line of the enclosing mapping).
func (d *decoder) str(m map[string]*yaml.Node, key string, required bool, what string, line int) string {
	v := m[key]
	if v == nil {
		if required {
			d.errorf(line, "%s: missing %q", what, key)
		}
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		d.errorf(v.Line, "%s: %q must be a string", what, key)
		return ""
	}
	if required && v.Value == "" {
		d.errorf(v.Line, "%s: %q is empty", what, key)
	}
	return v.Value
}

// strs reads a list of strings.
func (d *decoder) strs(m map[string]*yaml.Node, key string, required bool, what string, line int) []string {
	v := m[key]
	if v == nil {
		if required {
			d.errorf(line, "%s: missing %q", what, key)
		}
		return nil
	}
	out := d.list(v, what+" "+key)
	if required && len(out) == 0 {
		d.errorf(v.Line, "%s: %q is empty", what, key)
	}
	return out
}

// list reads a sequence of strings.
func (d *decoder) list(v *yaml.Node, what string) []string {
	if v.Kind != yaml.SequenceNode {
		d.errorf(v.Line, "%s: must be a list", what)
		return nil
	}
	var out []string
	for _, item := range v.Content {
		if item.Kind != yaml.ScalarNode {
			d.errorf(item.Line, "%s: items must be strings", what)
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

func (d *decoder) boolean(m map[string]*yaml.Node, key, what string) bool {
	v := m[key]
	if v == nil {
		return false
	}
	var b bool
	if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
		d.errorf(v.Line, "%s: %q must be true or false", what, key)
	}
	return b
}

func (d *decoder) number(m map[string]*yaml.Node, key, what string, line int) float64 {
	v := m[key]
	if v == nil {
		d.errorf(line, "%s: missing %q", what, key)
		return 0
	}
	var f float64
	if v.Kind != yaml.ScalarNode || v.Decode(&f) != nil {
		d.errorf(v.Line, "%s: %q must be a number", what, key)
	}
	return f
}

// optNumber reads a number that may be left out (0).
func (d *decoder) optNumber(m map[string]*yaml.Node, key, what string) float64 {
	if m[key] == nil {
		return 0
	}
	return d.number(m, key, what, 0)
}

// seq returns the items of a list field.
func (d *decoder) seq(m map[string]*yaml.Node, key string, required bool, what string, line int) []*yaml.Node {
	v := m[key]
	if v == nil {
		if required {
			d.errorf(line, "%s: missing %q", what, key)
		}
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		d.errorf(v.Line, "%s: %q must be a list", what, key)
		return nil
	}
	return v.Content
}
