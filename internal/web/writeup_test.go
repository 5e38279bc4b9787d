package web

import (
	"os"
	"strings"
	"testing"
	"time"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// On a Korean page the draft follows the Korean postmortem template: the
// same front matter plus title_ko and summary_ko, the six Korean section
// headings in order, the walk's answers in Korean, commands unchanged.
func TestWriteupDraftInKorean(t *testing.T) {
	cat, problems := triage.Load(os.DirFS("../../library"))
	if len(problems) > 0 {
		t.Fatalf("library triage problems: %v", problems)
	}
	res := cat.Classify("Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}.")
	walk, err := cat.Walk(triage.State{Tree: cat.Root().ID}, triage.Hints{Paste: res.Answers})
	if err != nil || !walk.Node.IsOutcome() {
		t.Fatalf("walk did not reach an outcome: %v", err)
	}
	md := writeupMarkdownKo(walk, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	front, body, ok := strings.Cut(strings.TrimPrefix(md, "---\n"), "\n---\n")
	if !ok {
		t.Fatalf("no front matter:\n%s", md)
	}
	for _, field := range []string{"id:", "title:", "title_ko:", "summary:", "summary_ko:", "date: 2026-11-30", "routes: [pending/untolerated-taint]", "playbooks: [pod-pending]"} {
		if !strings.Contains(front, "\n"+field) && !strings.HasPrefix(front, field) {
			t.Errorf("front matter lacks %q", field)
		}
	}
	last := -1
	for _, sec := range library.IncidentSectionsKo {
		i := strings.Index(body, "\n## "+sec+"\n")
		if i < 0 && strings.HasPrefix(body, "\n## "+sec+"\n") {
			i = 0
		}
		if i < 0 {
			t.Errorf("draft lacks section %q", sec)
			continue
		}
		if i < last {
			t.Errorf("section %q out of order", sec)
		}
		last = i
	}
	for _, want := range []string{"pending/untolerated-taint", "untolerated taint {nvidia.com/gpu: present}", "타임라인", "붙여 넣은 내용에서 추론"} {
		if !strings.Contains(md, want) {
			t.Errorf("Korean draft lacks %q", want)
		}
	}
	for _, st := range walk.Steps {
		if st.Node.QuestionKo != "" && !strings.Contains(md, st.Node.QuestionKo) {
			t.Errorf("Korean draft lacks the Korean question %q", st.Node.QuestionKo)
		}
	}
	if o := walk.Node.Outcome; o.DiagnosisKo != "" && !strings.Contains(md, o.DiagnosisKo) {
		t.Errorf("Korean draft lacks the Korean diagnosis")
	}
}
