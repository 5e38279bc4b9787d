// Package gaps runs the library's gap checks: conditions that caused public
// incidents, written in CEL (the expression language Kubernetes uses for
// validation) over a read-only cluster inventory (inventory.Inventory), each
// finding tied back to the incidents and playbooks that teach why it
// matters. It is pure: the cluster reader fills the inventory, and an
// inventory saved as JSON is checked the same way on another machine.
package gaps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
)

// Dir is the library folder that holds the checks, one per *.yaml file
// named after the check's id.
const Dir = "checks"

// Severity orders findings; a higher one is worse.
type Severity int

// Severities, lowest first.
const (
	Low Severity = iota + 1
	Medium
	High
	Critical
)

var severityNames = map[Severity]string{Low: "low", Medium: "medium", High: "high", Critical: "critical"}

func (s Severity) String() string { return severityNames[s] }

// ParseSeverity reads "critical", "high", "medium" or "low".
func ParseSeverity(s string) (Severity, error) {
	for sev, name := range severityNames {
		if strings.EqualFold(s, name) {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("severity %q is not one of critical, high, medium, low", s)
}

// MarshalText writes the severity's name, for JSON reports.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Check is one gap check as written in library/checks/ID.yaml.
type Check struct {
	ID       string
	Title    string
	Severity Severity
	// Kinds are the inventory kinds the check reads (keys of
	// inventory.Kinds); a failed read of any of them makes the
	// check an error.
	Kinds []string
	// Each, when set, is the kind whose objects Condition is evaluated
	// on, one at a time, as `object`; Detail then says what is wrong with
	// one object. Without Each, Objects (a list of strings) is evaluated
	// once over the whole inventory and names what it found, gated by
	// Condition when there is one.
	Each      string
	Condition string
	Detail    string
	Objects   string
	// Message is shown above the objects; {count} and {objects} are
	// replaced by their number and their names.
	Message   string
	Incidents []string
	Playbooks []string
	Fix       string
	// TitleKo, MessageKo (with the same placeholders) and FixKo are the
	// Korean twins of Title, Message and Fix.
	TitleKo   string
	MessageKo string
	FixKo     string
	Path      string
	Line      int

	condition, detail, objects cel.Program
	lines                      map[string]int
}

// Cites reports whether the check names the incident.
func (c *Check) Cites(incident string) bool { return slices.Contains(c.Incidents, incident) }

// lineOf is the line of a field in the check's file, for problems.
func (c *Check) lineOf(field string) int {
	if l, ok := c.lines[field]; ok {
		return l
	}
	return c.Line
}
