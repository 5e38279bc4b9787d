package drill

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"casebook/internal/kubectl"
	"casebook/internal/triage"
)

// Limits keep an attempt small enough for a URL and cheap to replay.
const (
	MaxCommands    = 60
	MaxRecovery    = 4000
	MaxElapsed     = 24 * time.Hour
	maxCommandText = 300
)

// Attempt is one person's go at a drill: the commands they ran, in order
// (canonical keys), the route they chose, their recovery direction and the
// time it took. It is all the state there is; the web keeps it in the URL.
type Attempt struct {
	Commands []string
	Route    string
	Recovery string
	Elapsed  time.Duration
}

// ErrAttempt is an attempt that does not fit the drill (a command it
// cannot run, too many commands); the doors report it as bad input.
var ErrAttempt = errors.New("drill: invalid attempt")

// Target is how long a drill of this difficulty should take.
func (d Difficulty) Target() time.Duration {
	switch d {
	case Easy:
		return 5 * time.Minute
	case Hard:
		return 15 * time.Minute
	}
	return 10 * time.Minute
}

// Step is one command of an attempt with its output.
type Step struct {
	Command string // as typed: "kubectl describe pod x -n y"
	Key     string
	Output  string
	Err     string // why the command cannot run on a recording
	// Evidence lists the drill's evidence lines this output shows.
	Evidence []int
}

// Run parses and runs one typed command on the drill's recording. A
// command that cannot run returns an error (a *kubectl.Error); output
// kubectl prints for a missing object is output.
func (d *Drill) Run(line string) (Step, error) {
	if len(line) > maxCommandText {
		return Step{}, fmt.Errorf("%w: a command of %d characters", ErrAttempt, len(line))
	}
	c, out, err := kubectl.Exec(d.Snapshot, line)
	if err != nil {
		return Step{Command: strings.TrimSpace(line), Err: err.Error()}, err
	}
	st := Step{Command: c.String(), Key: c.Key(), Output: out}
	for i, e := range d.Evidence {
		if strings.Contains(out, e.Line) {
			st.Evidence = append(st.Evidence, i)
		}
	}
	return st, nil
}

// Replay runs an attempt's commands again, in order, for the pages and
// the debrief. Every command must run: keys come from Run, so one that
// does not is a tampered or stale link.
func (d *Drill) Replay(keys []string) ([]Step, error) {
	if len(keys) > MaxCommands {
		return nil, fmt.Errorf("%w: %d commands (at most %d)", ErrAttempt, len(keys), MaxCommands)
	}
	steps := make([]Step, 0, len(keys))
	for _, k := range keys {
		st, err := d.Run(k)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrAttempt, k, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// Par is the fewest commands that show every piece of evidence: the
// distinct commands the drill names.
func (d *Drill) Par() int {
	seen := map[string]bool{}
	for _, e := range d.Evidence {
		if c, err := kubectl.Parse(e.Command, d.Snapshot.Target.Namespace); err == nil {
			seen[c.Key()] = true
		} else {
			seen[e.Command] = true
		}
	}
	return len(seen)
}

// Verdict on the route chosen.
const (
	RouteExact  = "exact"  // the expected route
	RouteFamily = "family" // another route of the same family
	RouteDecoy  = "decoy"  // the decoy's route
	RouteWrong  = "wrong"
	RouteNone   = "none" // no route chosen
)

// Score is how an attempt did, out of 100: the route (50), the evidence
// seen (30), economy of commands (10) and time (10).
type Score struct {
	Total     int `json:"total"`
	Route     int `json:"route"`
	Evidence  int `json:"evidence"`
	Commands  int `json:"commands"`
	Time      int `json:"time"`
	Par       int `json:"par"`
	Used      int `json:"used"`
	TargetSec int `json:"target_seconds"`
}

// Debrief is an attempt scored against the drill.
type Debrief struct {
	Drill    *Drill
	Attempt  Attempt
	Steps    []Step
	Verdict  string
	Found    []Evidence
	Missed   []Evidence
	Decoy    []Evidence // decoy lines the person saw
	Score    Score
	Outcome  *triage.Outcome // the playbook section of the expected route
	Probed   string          // the route live triage reaches over the recording
	Stopped  string          // the question it stopped at, when it reached none
	Expected string
}

// Grade scores an attempt. cat gives the route's playbook section and
// checks the route chosen exists.
func (d *Drill) Grade(a Attempt, cat *triage.Catalog) (*Debrief, error) {
	if len(a.Recovery) > MaxRecovery {
		return nil, fmt.Errorf("%w: recovery direction of %d characters (at most %d)", ErrAttempt, len(a.Recovery), MaxRecovery)
	}
	if a.Elapsed < 0 || a.Elapsed > MaxElapsed {
		return nil, fmt.Errorf("%w: elapsed time %v", ErrAttempt, a.Elapsed)
	}
	if a.Route != "" {
		if _, ok := cat.Route(a.Route); !ok {
			return nil, fmt.Errorf("%w: no route %q", ErrAttempt, a.Route)
		}
	}
	steps, err := d.Replay(a.Commands)
	if err != nil {
		return nil, err
	}
	db := &Debrief{Drill: d, Attempt: a, Steps: steps, Expected: d.Route}
	db.Outcome, _ = d.Outcome(cat)
	db.Probed, db.Stopped, _ = d.ProbedRoute(cat)
	seen := func(line string) bool {
		for _, st := range steps {
			if strings.Contains(st.Output, line) {
				return true
			}
		}
		return false
	}
	for _, e := range d.Evidence {
		if seen(e.Line) {
			db.Found = append(db.Found, e)
		} else {
			db.Missed = append(db.Missed, e)
		}
	}
	if d.Decoy != nil {
		for _, e := range d.Decoy.Evidence {
			if seen(e.Line) {
				db.Decoy = append(db.Decoy, e)
			}
		}
	}
	switch {
	case a.Route == "":
		db.Verdict = RouteNone
	case a.Route == d.Route:
		db.Verdict = RouteExact
	case d.Decoy != nil && a.Route == d.Decoy.Route:
		db.Verdict = RouteDecoy
	case FamilyOf(a.Route).ID == d.Family().ID:
		db.Verdict = RouteFamily
	default:
		db.Verdict = RouteWrong
	}
	db.Score = score(d, db)
	return db, nil
}

func score(d *Drill, db *Debrief) Score {
	s := Score{Par: d.Par(), Used: len(db.Steps), TargetSec: int(d.Difficulty.Target().Seconds())}
	switch db.Verdict {
	case RouteExact:
		s.Route = 50
	case RouteFamily:
		s.Route = 20
	}
	if n := len(d.Evidence); n > 0 {
		s.Evidence = int(math.Round(30 * float64(len(db.Found)) / float64(n)))
	}
	// Economy: full marks up to two commands over par, one point less per
	// command after that. Running nothing earns nothing.
	if s.Used > 0 {
		s.Commands = max(0, 10-max(0, s.Used-s.Par-2))
	}
	// Time: full marks within the target, falling to none at three times it.
	if db.Attempt.Elapsed > 0 || s.Used > 0 {
		target := d.Difficulty.Target()
		switch el := db.Attempt.Elapsed; {
		case el <= target:
			s.Time = 10
		case el < 3*target:
			s.Time = int(math.Round(10 * float64(3*target-el) / float64(2*target)))
		}
	}
	s.Total = s.Route + s.Evidence + s.Commands + s.Time
	return s
}

// Commands lists the commands worth comparing with kubectl itself for
// this drill: the usual first reads of the target, its nodes and the GPU
// stack, and every evidence command, as canonical keys.
func (d *Drill) Commands() []string {
	s := d.Snapshot
	ns := s.Target.Namespace
	lines := []string{"get pods -n " + ns, "get pods -n " + ns + " -o wide", "get events -n " + ns, "get nodes", "get nodes -o wide",
		"get resourcequota -n " + ns, "get pvc -n " + ns}
	if s.Pod != nil {
		lines = append(lines, "describe pod "+s.Pod.Name+" -n "+ns)
	}
	for _, o := range s.Owners {
		lines = append(lines, "describe "+strings.ToLower(o.Kind)+" "+o.Name+" -n "+o.Namespace)
	}
	for _, n := range s.Nodes {
		lines = append(lines, "describe node "+n.Name)
	}
	seen := map[string]bool{}
	for _, ds := range s.DaemonSets {
		if !seen[ds.Namespace] {
			seen[ds.Namespace] = true
			lines = append(lines, "get pods -n "+ds.Namespace+" -o wide", "get daemonsets -n "+ds.Namespace)
		}
	}
	for _, e := range append(append([]Evidence{}, d.Evidence...), decoyEvidence(d)...) {
		lines = append(lines, e.Command)
	}
	var out []string
	dup := map[string]bool{}
	for _, l := range lines {
		c, err := kubectl.Parse(l, ns)
		if err != nil || dup[c.Key()] {
			continue
		}
		dup[c.Key()] = true
		out = append(out, c.Key())
	}
	return out
}

func decoyEvidence(d *Drill) []Evidence {
	if d.Decoy == nil {
		return nil
	}
	return d.Decoy.Evidence
}
