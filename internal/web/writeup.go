package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"casebook/internal/content"
	"casebook/internal/draft"
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// handleWriteup turns a finished walk into a new incident file for a layer
// of the library (the team's top layer unless ?layer= names another): the
// layer's next free id, every required field, TODO where only a person can
// write. It is the file "casebook new incident" writes, so it passes lint
// as downloaded apart from its TODOs. ?body=ko gives the Korean body draft
// (the Korean postmortem template) to put beside it as a .ko.md file.
func (s *Server) handleWriteup(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	st, err := triage.ParseState(q.Get("tree"), q.Get("a"))
	if err != nil {
		return badRequestOf(err)
	}
	walk, err := cat.Walk(st, triage.Hints{})
	if err != nil {
		var se *triage.StateError
		if errors.As(err, &se) {
			return badRequestOf(err)
		}
		return err
	}
	if !walk.Node.IsOutcome() {
		return badRequestMsg("error.writeup_unfinished")
	}
	ctx := r.Context()
	in, err := writeupInput(ctx, c, q.Get("layer"), walk, time.Now().UTC())
	if err != nil {
		return err
	}
	md, name := draft.Markdown(in), draft.FileName(in)
	if q.Get("body") == "ko" {
		md = strings.Replace(writeupMarkdownKo(walk, in.Today), "id: IL-XXXX\n", "id: "+in.ID+"\n", 1)
		name = strings.TrimSuffix(name, ".md") + ".ko-draft.md"
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, err = w.Write([]byte(md))
	return err
}

// writeupLayer is the layer a write-up is drafted for: the one named, or
// the top of the stack (a team's own layer when there is one).
func writeupLayer(c *content.Content, name string) (library.LayerInfo, error) {
	if name == "" {
		if len(c.Layers) == 0 {
			return library.PublicInfo, nil
		}
		return c.Layers[len(c.Layers)-1], nil
	}
	info, ok := c.Layer(name)
	if !ok {
		return info, badRequestMsg("error.unknown_layer", "layer", i18n.Quote(name), "layers", strings.Join(c.LayerNames(), ", "))
	}
	return info, nil
}

// writeupInput is the draft of a walk's outcome for a layer: its next free
// id among the layer's incidents, the route's playbook, and the terms the
// route's cases share.
func writeupInput(ctx context.Context, c *content.Content, layer string, walk *triage.Walk, now time.Time) (draft.Input, error) {
	info, err := writeupLayer(c, layer)
	if err != nil {
		return draft.Input{}, err
	}
	ids, err := c.Store.FilteredIDs(ctx, store.Filter{Layers: []string{info.Name}})
	if err != nil {
		return draft.Input{}, err
	}
	o := walk.Node.Outcome
	in := draft.Input{Layer: info, ID: draft.NextID(info, ids), Today: now, Outcome: o, Steps: walk.Steps, Taxonomy: c.Taxonomy}
	if layer == "" && info.Name == library.PublicLayer {
		// No team layer: a write-up is a team's, so it gets no public id.
		in.ID = draft.Placeholder
	}
	if pb, err := c.Store.Playbook(ctx, o.Playbook); err == nil {
		in.Playbook = pb
	}
	cases, err := c.Store.IncidentsForRoute(ctx, o.Route, 200)
	if err != nil {
		return draft.Input{}, err
	}
	var comps, syms [][]string
	for _, x := range cases {
		comps, syms = append(comps, x.Components), append(syms, x.Symptoms)
	}
	in.Components, in.Symptoms = draft.Common(comps, 3), draft.Common(syms, 2)
	return in, nil
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

// writeupView fills the outcome's write-up block: the file the draft
// becomes in the top layer (its id and path), the commands that add it,
// and a draft for each other layer.
func writeupView(ctx context.Context, pr *i18n.Printer, c *content.Content, walk *triage.Walk, ov *templates.OutcomeView) error {
	in, err := writeupInput(ctx, c, "", walk, time.Now().UTC())
	if err != nil {
		return err
	}
	base := ov.WriteupHref
	ov.WriteupID, ov.WriteupPath, ov.WriteupLayer = in.ID, draft.Path(in), layerLabel(pr, in.Layer.Name)
	ov.WriteupNoLayer = in.ID == draft.Placeholder
	ov.WriteupCommands = draft.Commands(in, "~/Downloads/"+draft.FileName(in))
	if pr.Lang().Korean() {
		// The Korean body, from the Korean postmortem template, goes
		// beside the entry as its .ko.md file.
		ov.WriteupKoHref = base + "&body=ko&lang=ko"
	}
	if len(c.Layers) > 1 {
		for _, l := range c.Layers {
			if l.Name != in.Layer.Name {
				ov.WriteupOther = append(ov.WriteupOther, templates.Link{Label: layerLabel(pr, l.Name), Href: base + "&layer=" + url.QueryEscape(l.Name)})
			}
		}
	}
	return nil
}
