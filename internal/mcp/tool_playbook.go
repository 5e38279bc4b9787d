package mcp

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/store"
)

// PlaybookInput names a playbook and, optionally, one part of it.
type PlaybookInput struct {
	ID      string `json:"id" jsonschema:"playbook id such as pod-pending (classify_error and get_incident name them)"`
	Section string `json:"section,omitempty" jsonschema:"a heading anchor such as root-cause or a sub-heading's anchor; returns only that part"`
	Lang    string `json:"lang,omitempty"`
}

// PlaybookOutput is a playbook, whole or one part of it.
type PlaybookOutput struct {
	ID         string            `json:"id"`
	Title      string            `json:"title"`
	Summary    string            `json:"summary"`
	URL        string            `json:"url"`
	Symptoms   []string          `json:"symptoms"`
	Components []string          `json:"components"`
	Signals    []string          `json:"signals" jsonschema:"strings in events or logs that point to this playbook"`
	Sections   []PlaybookSection `json:"sections"`
	Incidents  []Ref             `json:"incidents" jsonschema:"incidents that link to the playbook or share its symptoms, newest first"`
	Lang       string            `json:"lang" jsonschema:"the language of title, summary, sections and the incidents' titles"`
	// EnglishOnly says a Korean request got the English playbook.
	EnglishOnly bool `json:"english_only,omitempty" jsonschema:"lang is ko but the playbook has no Korean version yet"`
}

// PlaybookSection is one section, or one sub-heading's part of a section.
type PlaybookSection struct {
	ID       string   `json:"id" jsonschema:"heading anchor"`
	Title    string   `json:"title"`
	Parent   string   `json:"parent,omitempty" jsonschema:"the section this part belongs to, when a sub-heading was asked for"`
	URL      string   `json:"url"`
	Markdown string   `json:"markdown"`
	Anchors  []Anchor `json:"anchors,omitempty" jsonschema:"sub-headings inside the section; pass one as section to read only that part"`
}

// Anchor is a sub-heading with its anchor.
type Anchor struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Level int    `json:"level"`
}

const maxPlaybookIncidents = 8

var playbookTool = toolSpec[PlaybookInput]{
	name:  "get_playbook",
	title: "Get a playbook",
	description: "Use to read a triage playbook: Detect, Scope, Mitigate, Root cause, Verify, Record, with commands and the " +
		"signals to look for. Pass section (an anchor from classify_error or from this tool's anchors) to read just that part, " +
		"e.g. the cause a classification points to. Propose the read-only commands first; changes go through review and dry run.",
}

func (t *tools) playbook(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in PlaybookInput) (PlaybookOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return PlaybookOutput{}, err
	}
	pr := printerFor(lang)
	id := strings.ToLower(strings.TrimSpace(in.ID))
	pb, err := c.Store.Playbook(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return PlaybookOutput{}, unknownPlaybook(ctx, c, in.ID)
	}
	if err != nil {
		return PlaybookOutput{}, err
	}
	out := PlaybookOutput{ID: pb.ID, Title: pb.Title, Summary: pb.Summary, URL: "/playbooks/" + pb.ID, Symptoms: pb.Symptoms,
		Components: pb.Components, Signals: pb.Signals, Incidents: []Ref{}, Lang: string(lang)}
	if lang.Korean() {
		// Same anchors in both languages, so section arguments and URLs
		// work unchanged.
		if pb.Ko != nil {
			pb.Title, pb.Summary, pb.Sections = pb.Ko.Title, pb.Ko.Summary, pb.Ko.Sections
			out.Title, out.Summary = pb.Title, pb.Summary
		} else {
			out.EnglishOnly = true
		}
	}
	if in.Section == "" {
		for _, s := range pb.Sections {
			out.Sections = append(out.Sections, wholeSection(pb.ID, s))
		}
	} else {
		part, ok := playbookPart(pb, strings.TrimPrefix(strings.TrimSpace(in.Section), "#"))
		if !ok {
			return PlaybookOutput{}, badArg("playbook %s has no heading %q; its anchors are: %s", pb.ID, in.Section, strings.Join(pb.Anchors(), ", "))
		}
		out.Sections = []PlaybookSection{part}
	}
	incs, err := c.Store.IncidentsForPlaybook(ctx, pb.ID, maxPlaybookIncidents)
	if err != nil {
		return PlaybookOutput{}, err
	}
	for _, it := range incs {
		out.Incidents = append(out.Incidents, Ref{ID: it.ID, Title: pr.PickText(it.Title, it.TitleKo), Date: it.Date, URL: "/incidents/" + it.ID})
	}
	return out, nil
}

func unknownPlaybook(ctx context.Context, c *content.Content, id string) error {
	pbs, err := c.Store.Playbooks(ctx)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(pbs))
	for _, p := range pbs {
		ids = append(ids, p.ID)
	}
	if n := library.Nearest(id, ids); n != "" {
		return badArg("no playbook %q (did you mean %q?)", id, n)
	}
	return badArg("no playbook %q; the playbooks are: %s", id, strings.Join(ids, ", "))
}

func wholeSection(pb string, s library.Section) PlaybookSection {
	out := PlaybookSection{ID: s.ID, Title: s.Title, URL: "/playbooks/" + pb + "#" + s.ID, Markdown: s.Markdown}
	for _, h := range s.Anchors {
		out.Anchors = append(out.Anchors, Anchor{ID: h.ID, Title: h.Title, Level: h.Level})
	}
	return out
}

// playbookPart finds the section or sub-heading with the given anchor. A
// sub-heading's part runs from its heading to the next heading of the same
// or a higher level, so "cause-c-untolerated-taint" returns that cause
// alone rather than the whole Root cause section.
func playbookPart(pb *library.Playbook, anchor string) (PlaybookSection, bool) {
	for _, s := range pb.Sections {
		if s.ID == anchor {
			return wholeSection(pb.ID, s), true
		}
		for i, h := range s.Anchors {
			if h.ID != anchor {
				continue
			}
			part := PlaybookSection{ID: h.ID, Title: h.Title, Parent: s.Title, URL: "/playbooks/" + pb.ID + "#" + h.ID, Markdown: s.Markdown}
			if md, ok := headingPart(s.Markdown, len(s.Anchors), i); ok {
				part.Markdown = md
			}
			return part, true
		}
	}
	return PlaybookSection{}, false
}

// headingPart cuts the i-th of n headings out of Markdown. It finds ATX
// headings line by line, skipping fenced code; the parser listed the same
// headings in the same order, so when the counts agree the i-th line found
// is the i-th anchor. When they do not (a setext heading), it reports false
// and the caller keeps the whole section.
func headingPart(md string, n, i int) (string, bool) {
	lines := strings.Split(md, "\n")
	type heading struct{ line, level int }
	var hs []heading
	fence := ""
	for j, l := range lines {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) > 3 {
			continue // indented code
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		if level >= 1 && level <= 6 && (len(t) == level || t[level] == ' ' || t[level] == '\t') {
			hs = append(hs, heading{j, level})
		}
	}
	if len(hs) != n || i >= n {
		return "", false
	}
	end := len(lines)
	for _, h := range hs[i+1:] {
		if h.level <= hs[i].level {
			end = h.line
			break
		}
	}
	return strings.TrimSpace(strings.Join(lines[hs[i].line:end], "\n")), true
}
