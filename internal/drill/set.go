package drill

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"casebook/internal/kubectl"
	"casebook/internal/library"
	"casebook/internal/snapshot"
)

// Set is the drills of one library, sorted by family then id.
type Set struct {
	Drills []*Drill
	byID   map[string]*Drill
}

// Drill returns the drill with the given id.
func (s *Set) Drill(id string) (*Drill, bool) {
	d, ok := s.byID[id]
	return d, ok
}

// ForIncident lists the drills modelled on an incident, for its page.
func (s *Set) ForIncident(id string) []*Drill {
	var out []*Drill
	for _, d := range s.Drills {
		for _, inc := range d.Incidents {
			if inc == id {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// Load reads every drill of a library root with its snapshot. A drill
// with problems is left out and its problems returned, so one broken file
// does not take the others down.
func Load(fsys fs.FS) (*Set, []library.Problem) {
	set := &Set{byID: map[string]*Drill{}}
	names, err := fs.Glob(fsys, Dir+"/*.yaml")
	if err != nil {
		return set, []library.Problem{{Path: Dir, Msg: err.Error()}}
	}
	sort.Strings(names)
	var problems []library.Problem
	for _, name := range names {
		d, ps := loadOne(fsys, name)
		problems = append(problems, ps...)
		if d == nil || len(ps) > 0 {
			continue
		}
		set.byID[d.ID] = d
		set.Drills = append(set.Drills, d)
	}
	// Snapshots without a drill are left-overs of a rename.
	snaps, _ := fs.Glob(fsys, Dir+"/*"+SnapshotSuffix)
	for _, sp := range snaps {
		yml := strings.TrimSuffix(sp, SnapshotSuffix) + ".yaml"
		if _, err := fs.Stat(fsys, yml); err != nil {
			problems = append(problems, library.Problem{Path: sp, Line: 1, Msg: "snapshot without a drill: no " + yml})
		}
	}
	order := map[string]int{}
	for i, f := range Families {
		order[f.ID] = i
	}
	sort.SliceStable(set.Drills, func(i, j int) bool {
		a, b := set.Drills[i], set.Drills[j]
		if fa, fb := order[a.Family().ID], order[b.Family().ID]; fa != fb {
			return fa < fb
		}
		return a.ID < b.ID
	})
	library.SortProblems(problems)
	return set, problems
}

// ReadOne reads one drill and its recording and returns it whenever both
// parse, with the problems lint would report: a fresh recording is worth
// looking at before its evidence lines are brought up to date.
func ReadOne(fsys fs.FS, id string) (*Drill, []library.Problem) {
	d, problems := loadOne(fsys, Dir+"/"+id+".yaml")
	if d != nil && d.Snapshot == nil {
		return nil, problems
	}
	return d, problems
}

func loadOne(fsys fs.FS, name string) (*Drill, []library.Problem) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, []library.Problem{{Path: name, Msg: library.ReadReason(err)}}
	}
	if err := library.CheckYAML(data); err != nil {
		return nil, []library.Problem{library.BoundProblem(name, err)}
	}
	d, problems := Parse(name, data)
	if d == nil {
		return nil, problems
	}
	snapPath := strings.TrimSuffix(name, ".yaml") + SnapshotSuffix
	raw, err := fs.ReadFile(fsys, snapPath)
	if err != nil {
		problems = append(problems, library.Problem{Path: name, Line: 1, Msg: "no recording: " + snapPath + " is missing (casebook drill record writes it)"})
		return d, problems
	}
	snaps, err := snapshot.Decode(bytes.NewReader(raw))
	switch {
	case err != nil:
		problems = append(problems, library.Problem{Path: snapPath, Line: 1, Msg: err.Error()})
		return d, problems
	case len(snaps) != 1:
		problems = append(problems, library.Problem{Path: snapPath, Line: 1, Msg: fmt.Sprintf("holds %d snapshots; a drill records one pod or workload", len(snaps))})
		return d, problems
	}
	d.Snapshot = &snaps[0]
	problems = append(problems, d.checkEvidence()...)
	return d, problems
}

// checkEvidence runs every evidence command on the snapshot and checks
// the line is in its output, so a drill never asks for evidence the
// recording does not show.
func (d *Drill) checkEvidence() []library.Problem {
	var problems []library.Problem
	check := func(field string, i int, command, line string) {
		item := fmt.Sprintf("%s[%d]", field, i)
		if command == "" {
			if !strings.Contains(d.Start.Text.En, line) {
				problems = append(problems, library.Problem{Path: d.Path, Line: d.lineOf(item + ".line"), Msg: fmt.Sprintf("%s: %q is not in the starting symptom's text", item, line)})
			}
			return
		}
		c, out, err := kubectl.Exec(d.Snapshot, command)
		switch {
		case err != nil:
			problems = append(problems, library.Problem{Path: d.Path, Line: d.lineOf(item + ".command"), Msg: fmt.Sprintf("%s: %s: %v", item, commandText(command), err)})
		case !strings.Contains(out, line):
			problems = append(problems, library.Problem{Path: d.Path, Line: d.lineOf(item + ".line"), Msg: fmt.Sprintf("%s: %q is not in the output of %s", item, line, c)})
		}
	}
	for i, e := range d.Evidence {
		check("evidence", i, e.Command, e.Line)
	}
	if d.Decoy != nil {
		for i, e := range d.Decoy.Evidence {
			check("decoy.evidence", i, e.Command, e.Line)
		}
	}
	for i, a := range d.Answers {
		check("answers", i, a.Command, a.Line)
	}
	return problems
}

func commandText(c string) string {
	if strings.HasPrefix(c, "kubectl ") {
		return c
	}
	return "kubectl " + c
}
