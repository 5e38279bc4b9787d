package web

import (
	"os"
	"strings"
	"testing"
	"time"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// The draft follows the incident format closely enough that filling in the
// TODOs makes a library entry: same front-matter fields, the six sections in
// order, the answers and evidence of the walk, and the route's playbook.
func TestWriteupDraftFollowsIncidentFormat(t *testing.T) {
	cat, problems := triage.Load(os.DirFS("../../library"))
	if len(problems) > 0 {
		t.Fatalf("library triage problems: %v", problems)
	}
	root := cat.Root()
	res := cat.Classify("Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}.")
	walk, err := cat.Walk(triage.State{Tree: root.ID}, triage.Hints{Paste: res.Answers})
	if err != nil || !walk.Node.IsOutcome() {
		t.Fatalf("walk did not reach an outcome: %v %+v", err, walk)
	}
	md := writeupMarkdown(walk, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))

	front, body, ok := strings.Cut(strings.TrimPrefix(md, "---\n"), "\n---\n")
	if !ok {
		t.Fatalf("no front matter:\n%s", md)
	}
	for _, field := range []string{"id:", "title:", "summary:", "organization:", "date: 2026-11-30", "domains:", "components:", "causes:",
		"symptoms:", "contributing_factors:", "trigger:", "detection:", "sources:", "playbooks: [pod-pending]"} {
		if !strings.Contains(front, "\n"+field) && !strings.HasPrefix(front, field) {
			t.Errorf("front matter lacks %q", field)
		}
	}
	last := -1
	for _, sec := range library.IncidentSections {
		i := strings.Index(body, "\n## "+sec+"\n")
		if i < 0 {
			t.Errorf("draft lacks section %q", sec)
			continue
		}
		if i < last {
			t.Errorf("section %q out of order", sec)
		}
		last = i
	}
	for _, want := range []string{"pending/untolerated-taint", "untolerated taint {nvidia.com/gpu: present}", "Timeline", "(paste)"} {
		if !strings.Contains(md, want) {
			t.Errorf("draft lacks %q", want)
		}
	}
}
