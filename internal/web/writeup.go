package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"casebook/internal/triage"
)

// handleWriteup turns a finished walk into a Markdown draft in the incident
// format, following the postmortem-template playbook, so a triage can become
// a library entry.
func (s *Server) handleWriteup(w http.ResponseWriter, r *http.Request) error {
	_, cat, err := s.currentTriage()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	st, err := triage.ParseState(q.Get("tree"), q.Get("a"))
	if err != nil {
		return badRequest{err.Error()}
	}
	walk, err := cat.Walk(st, triage.Hints{})
	if err != nil {
		var se *triage.StateError
		if errors.As(err, &se) {
			return badRequest{err.Error()}
		}
		return err
	}
	if !walk.Node.IsOutcome() {
		return badRequest{"the walk has not reached an outcome yet; answer the remaining questions first"}
	}
	md := writeupMarkdown(walk, time.Now().UTC())
	if printer(r.Context()).Lang().Korean() {
		md = writeupMarkdownKo(walk, time.Now().UTC())
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="incident-draft-`+strings.ReplaceAll(walk.Node.Outcome.Route, "/", "-")+`.md"`)
	_, err = w.Write([]byte(md))
	return err
}

// writeupMarkdown is pure so tests can check the draft directly.
func writeupMarkdown(walk *triage.Walk, now time.Time) string {
	o := walk.Node.Outcome
	var b strings.Builder
	yamlStr := func(s string) string {
		return "\"" + strings.ReplaceAll(strings.ReplaceAll(s, "\\", "\\\\"), "\"", "\\\"") + "\""
	}
	fmt.Fprintf(&b, "---\n# Draft from the Casebook triage wizard (%s). Fill in the TODOs, pick taxonomy ids\n# from library/taxonomy.yaml, run `casebook lint`, then open a pull request.\n", o.Route)
	fmt.Fprintf(&b, "id: IL-XXXX\ntitle: %s\nsummary: TODO one sentence - what broke, for whom, and why.\norganization: TODO\ndate: %s\n", yamlStr("TODO: "+o.Diagnosis), now.Format("2006-01-02"))
	fmt.Fprintf(&b, "domains: [kubernetes]\ncomponents: []\ncauses: []\nsymptoms: []\ncontributing_factors: []\n")
	fmt.Fprintf(&b, "trigger: TODO\ndetection: TODO\nsources:\n  - url: https://example.invalid/TODO-internal-postmortem\n    title: TODO\n    kind: postmortem\nplaybooks: [%s]\n---\n\n", o.Playbook)
	fmt.Fprintf(&b, "## Symptom\n\nTODO: what users and operators saw.\n\nTriage route: `%s` (playbook `%s`, section `#%s`).\n\nDiagnosis: %s\n\n", o.Route, o.Playbook, o.Section, o.Diagnosis)
	b.WriteString("Answers given in the triage wizard:\n\n")
	for _, st := range walk.Steps {
		src := ""
		if st.Source != triage.SourcePerson {
			src = " (" + string(st.Source) + ")"
		}
		fmt.Fprintf(&b, "- %s — **%s**%s\n", st.Node.Question, st.Choice.Label, src)
		for _, e := range st.Evidence {
			fmt.Fprintf(&b, "  - evidence: `%s`\n", strings.ReplaceAll(e.Text, "`", "'"))
		}
	}
	b.WriteString("\n## Trigger\n\nTODO: the event that set it off.\n\n## Detection\n\nTODO: how it was noticed, by whom, and how long after it began.\n\n")
	b.WriteString("## Response\n\nTimeline (UTC):\n\n")
	fmt.Fprintf(&b, "- %s — triage wizard routed to `%s`\n- HH:MM — TODO first alert or report\n- HH:MM — TODO mitigation applied\n- HH:MM — TODO recovery verified\n\n", now.Format("2006-01-02 15:04"), o.Route)
	b.WriteString("Commands run:\n\n")
	for _, c := range o.Commands {
		fmt.Fprintf(&b, "```bash\n%s\n```\n\n", strings.TrimSpace(c))
	}
	b.WriteString("Mitigation:\n\n")
	for _, m := range o.Mitigation {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	b.WriteString("\n## Follow-ups\n\n- TODO: owner, action, due date\n\nVerification used:\n\n")
	for _, v := range o.Verify {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	b.WriteString("\n## Lessons\n\nTODO: what a platform team should take away.\n")
	return b.String()
}

// writeupMarkdownKo is the draft in Korean, following the Korean
// postmortem template (playbooks/postmortem-template.ko.md): the same front
// matter with title_ko and summary_ko, and the six sections under their
// Korean headings, so it can become IL-NNNN-slug.ko.md beside the English
// file. Commands, ids and evidence lines stay as the software printed them.
func writeupMarkdownKo(walk *triage.Walk, now time.Time) string {
	o := walk.Node.Outcome
	diag := o.Diagnosis
	if o.DiagnosisKo != "" {
		diag = o.DiagnosisKo
	}
	mitigation, verify := o.Mitigation, o.Verify
	if len(o.MitigationKo) == len(o.Mitigation) && len(o.MitigationKo) > 0 {
		mitigation = o.MitigationKo
	}
	if len(o.VerifyKo) == len(o.Verify) && len(o.VerifyKo) > 0 {
		verify = o.VerifyKo
	}
	var b strings.Builder
	yamlStr := func(s string) string {
		return "\"" + strings.ReplaceAll(strings.ReplaceAll(s, "\\", "\\\\"), "\"", "\\\"") + "\""
	}
	fmt.Fprintf(&b, "---\n# Casebook 증상 진단에서 만든 초안 (%s). TODO를 채우고 library/taxonomy.yaml의 id로 분류한 뒤\n# `casebook lint`를 돌리고 pull request를 여세요. 영어 본문은 IL-NNNN-slug.md, 이 한국어 본문은\n# 그 옆 IL-NNNN-slug.ko.md에 둡니다(한국어 파일의 front matter에는 id만).\n", o.Route)
	fmt.Fprintf(&b, "id: IL-XXXX\ntitle: TODO 무엇이 누구에게 고장 났는지 영어로 짧게\ntitle_ko: %s\nsummary: TODO 영어 한 문장 - 무엇이, 누구에게, 왜 고장 났나\nsummary_ko: TODO 한국어 한 문장\norganization: TODO\ndate: %s\nadded: %s\n",
		yamlStr("TODO: "+diag), now.Format("2006-01-02"), now.Format("2006-01-02"))
	fmt.Fprintf(&b, "domains: [kubernetes]\ncomponents: []\ncauses: []\nsymptoms: []\ncontributing_factors: []\n")
	fmt.Fprintf(&b, "routes: [%s]\ntrigger: TODO 영어 한 문장\ndetection: TODO 영어 한두 문장\nsources:\n  - url: https://example.invalid/TODO-internal-postmortem\n    title: TODO\n    kind: postmortem\n    retrieved: %s\nplaybooks: [%s]\n---\n\n", o.Route, now.Format("2006-01-02"), o.Playbook)
	fmt.Fprintf(&b, "## 증상\n\nTODO: 사용자와 운영자가 본 것. 오류 메시지는 글자 그대로, 영향 범위, 영향 시작부터 완전 복구까지의 시간.\n\n진단 경로: `%s` (플레이북 `%s`, 섹션 `#%s`)\n\n진단: %s\n\n", o.Route, o.Playbook, o.Section, diag)
	b.WriteString("증상 진단에서 고른 답:\n\n")
	for _, st := range walk.Steps {
		q, a := st.Node.Question, st.Choice.Label
		if st.Node.QuestionKo != "" {
			q = st.Node.QuestionKo
		}
		if st.Choice.LabelKo != "" {
			a = st.Choice.LabelKo
		}
		src := ""
		switch st.Source {
		case triage.SourcePaste:
			src = " (붙여 넣은 내용에서 추론)"
		case triage.SourceProbe:
			src = " (클러스터에서 읽음)"
		}
		fmt.Fprintf(&b, "- %s — **%s**%s\n", q, a, src)
		for _, e := range st.Evidence {
			fmt.Fprintf(&b, "  - 근거: `%s`\n", strings.ReplaceAll(e.Text, "`", "'"))
		}
	}
	b.WriteString("\n## 촉발\n\nTODO: 일을 시작시킨 사건과 그 시각, 그리고 그것을 어떻게 확인했는지.\n\n")
	b.WriteString("## 감지\n\nTODO: 언제, 무엇으로(알림, 대시보드, 사용자 제보) 알아챘고 영향 시작과 감지 사이가 얼마였는지. 알림이 울리지 않았다면 그렇다고 적는다.\n\n")
	b.WriteString("## 조치\n\n### 타임라인\n\n모든 시각은 UTC.\n\n")
	fmt.Fprintf(&b, "- %s — 증상 진단이 `%s`로 안내\n- HH:MM — TODO 첫 알림이나 제보\n- HH:MM — TODO 완화 적용\n- HH:MM — TODO 복구 검증\n\n", now.Format("2006-01-02 15:04"), o.Route)
	b.WriteString("실행한 명령:\n\n")
	for _, c := range o.Commands {
		fmt.Fprintf(&b, "```bash\n%s\n```\n\n", strings.TrimSpace(c))
	}
	b.WriteString("임시 완화:\n\n")
	for _, m := range mitigation {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	b.WriteString("\n## 후속 조치\n\n- [ ] TODO: 조치 - 담당자 - 기한 - 다루는 원인이나 요인\n\n복구 검증에 쓴 기준:\n\n")
	for _, v := range verify {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	b.WriteString("\n## 교훈\n\nTODO: 다른 곳의 플랫폼 팀이 가져갈 것을 몇 문장으로.\n")
	return b.String()
}
