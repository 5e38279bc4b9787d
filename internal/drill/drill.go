// Package drill holds the library's drills: practice triage on a recorded
// broken cluster. A drill is a YAML file in library/drills (the scenario in
// English and Korean, the incidents it is modelled on, the expected route,
// the evidence to find, the recovery direction) beside the snapshot the
// live reader recorded from a cluster where the failure was staged. The
// person investigates by running read-only kubectl commands against the
// snapshot (internal/kubectl renders them), picks a route and writes a
// recovery direction; the debrief scores the attempt and shows what was
// found and missed.
//
// Everything here is pure: the web pages, the CLI and the MCP tools each
// translate one Attempt into a Debrief the same way.
package drill

import (
	"strings"

	"casebook/internal/snapshot"
)

// Dir is the library folder that holds drills: ID.yaml with
// ID.snapshot.json beside it.
const Dir = "drills"

// SnapshotSuffix names a drill's recording: drills/ID.snapshot.json.
const SnapshotSuffix = ".snapshot.json"

// Drill is one drill as written in library/drills/ID.yaml.
type Drill struct {
	ID         string
	Title      Text
	Difficulty Difficulty
	Incidents  []string
	// Route is the triage route the evidence leads to; the live probes,
	// with Answers for the questions a recording cannot answer, must reach
	// it from the snapshot.
	Route    string
	Start    Start
	Answers  []Answer
	Evidence []Evidence
	Decoy    *Decoy
	Hints    []Text
	Recovery Text
	Teaches  Text

	Snapshot *snapshot.Snapshot
	Path     string
	lines    map[string]int
}

// Text is a string in English and Korean.
type Text struct {
	En, Ko string
}

// In returns the text in lang ("ko" or anything else for English),
// falling back to English when the Korean is missing.
func (t Text) In(lang string) string {
	if lang == "ko" && t.Ko != "" {
		return t.Ko
	}
	return t.En
}

// Start is what the on-call person sees first: an alert, a message from a
// user, a ticket.
type Start struct {
	Kind string // alert, message, ticket
	From string // where it came from: "Alertmanager", "#ml-serving"
	Text Text
}

// StartKinds are the kinds a Start may have.
var StartKinds = []string{"alert", "message", "ticket"}

// Answer is the answer to a triage question that a recording cannot
// answer (latency, metrics), with the line of the starting symptom or of a
// command's output that gives it away.
type Answer struct {
	Question string
	Choice   string
	Command  string // "" when Line is in the starting symptom
	Line     string
	Why      Text
}

// Evidence is a fact the person should find: a line in the output of a
// command.
type Evidence struct {
	Command string // canonical, as kubectl.Command.Key prints it, with or without "kubectl"
	Line    string
	Why     Text
}

// Decoy is the plausible cause that does not act: the route it suggests,
// why it is not the one, and the lines that make it look likely.
type Decoy struct {
	Route    string
	Text     Text
	Evidence []Evidence
}

// Difficulty sets the time a drill should take.
type Difficulty string

// Difficulties, easiest first.
const (
	Easy   Difficulty = "easy"
	Medium Difficulty = "medium"
	Hard   Difficulty = "hard"
)

// Difficulties lists the valid values.
var Difficulties = []Difficulty{Easy, Medium, Hard}

// Family is a group of routes, named by the first part of their ids
// (pending/... is scheduling). The doors word it from the catalogue.
type Family struct {
	ID string
}

// Families lists the route families in the order pages show them.
var Families = []Family{{"scheduling"}, {"gpu"}, {"memory"}, {"cpu"}, {"llm"}, {"pods"}, {"nodes"}, {"network"}, {"control-plane"}}

var familyOfPrefix = map[string]string{"pending": "scheduling", "gpu": "gpu", "memory": "memory", "cpu": "cpu",
	"llm": "llm", "pod": "pods", "node": "nodes", "network": "network", "control-plane": "control-plane"}

// FamilyOf returns the family of a route id ("pending/volume" is
// scheduling).
func FamilyOf(route string) Family {
	prefix, _, _ := strings.Cut(route, "/")
	id := familyOfPrefix[prefix]
	for _, f := range Families {
		if f.ID == id {
			return f
		}
	}
	return Family{ID: prefix}
}

// Family is the drill's route family.
func (d *Drill) Family() Family { return FamilyOf(d.Route) }

// lineOf is the line of a field in the drill's file, for problems.
func (d *Drill) lineOf(field string) int {
	// "evidence[1].line", then "evidence[1]", then "evidence".
	for f := field; f != ""; {
		if l, ok := d.lines[f]; ok {
			return l
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return 1
}
