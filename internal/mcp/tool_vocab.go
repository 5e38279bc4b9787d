package mcp

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
)

// VocabInput is a few words to map onto the taxonomy.
type VocabInput struct {
	Text string `json:"text" jsonschema:"a few words in English or Korean, e.g. 'GPU node NotReady' or '노드 자동 복구'"`
	Lang string `json:"lang,omitempty"`
}

// VocabOutput lists the taxonomy terms the words name.
type VocabOutput struct {
	Terms []VocabTerm `json:"terms" jsonschema:"terms named by the words, in the order the words name them; empty when none"`
	Lang  string      `json:"lang" jsonschema:"every term carries both label and label_ko; lang only echoes the request"`
}

// VocabTerm is one taxonomy term with what it takes to filter by it.
type VocabTerm struct {
	Facet         string `json:"facet" jsonschema:"the filter field to put the id in: cause, cause_category, component, symptom, factor or domain"`
	ID            string `json:"id"`
	Label         string `json:"label"`
	LabelKo       string `json:"label_ko,omitempty"`
	Description   string `json:"description,omitempty"`
	DescriptionKo string `json:"description_ko,omitempty"`
	Incidents     int    `json:"incidents" jsonschema:"how many incidents carry the term"`
}

// maxVocabText keeps vocab to words; a paste belongs in classify_error.
const maxVocabText = 2000

var vocabTool = toolSpec[VocabInput]{
	name:  "vocab",
	title: "Words to taxonomy terms",
	description: "Use to turn the user's words (English or Korean; labels, Korean labels and aliases all count) into " +
		"Casebook taxonomy term ids, before filtering list_incidents or search_incidents. " +
		"Returns each term's facet, id, labels and how many incidents carry it. For pasted errors use classify_error instead.",
	tweak: func(p map[string]*jsonschema.Schema) {
		p["text"].MinLength = ptr(1)
		p["text"].MaxLength = ptr(maxVocabText)
	},
}

func (t *tools) vocab(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in VocabInput) (VocabOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return VocabOutput{}, err
	}
	if strings.TrimSpace(in.Text) == "" {
		return VocabOutput{}, badArg("text is empty: give the words to look up")
	}
	if len(in.Text) > maxVocabText {
		return VocabOutput{}, badArg("text is %d bytes; vocab takes a few words (at most %d bytes). Use classify_error for pasted output", len(in.Text), maxVocabText)
	}
	counts, err := c.Store.FacetCounts(ctx, store.Filter{}, c.Taxonomy)
	if err != nil {
		return VocabOutput{}, err
	}
	out := VocabOutput{Terms: []VocabTerm{}, Lang: string(lang)}
	for _, s := range search.Suggest(c.Taxonomy, in.Text) {
		term, ok := c.Taxonomy.Term(s.Facet, s.Term)
		if !ok {
			continue
		}
		out.Terms = append(out.Terms, VocabTerm{Facet: string(s.Facet), ID: term.ID, Label: term.Label, LabelKo: term.LabelKo,
			Description: term.Description, DescriptionKo: term.DescriptionKo, Incidents: count(counts, s.Facet, term.ID)})
	}
	return out, nil
}

// count finds a term's incident count among facet counts.
func count(counts map[string][]store.FacetCount, f library.Facet, id string) int {
	for _, fc := range counts[string(f)] {
		if fc.Term == id {
			return fc.Count
		}
	}
	return 0
}
