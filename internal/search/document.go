package search

import (
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"

	"casebook/internal/library"
)

// segment is one value of a text field together with the fragment key a
// highlight in it is reported under.
type segment struct {
	key  string
	text string
}

// document is what gets indexed for one incident or playbook. The same
// function builds it at index time and, for the hits of a query, at
// highlight time, so match offsets reported by the index always point into
// the same strings.
type document struct {
	id    string
	text  [numTextFields][]segment // analysed fields, by textField
	ident []string                 // identifiers (fieldIdent), at index time only

	// words holds the typo vocabulary's tokens of each fieldWords segment,
	// analysed on first use: highlighting a typo neighbour needs them, and
	// a document kept for highlighting (doccache.go) is analysed once.
	wordsOnce sync.Once
	words     [][]wordToken
}

// textFields are the text fields a document holds, numbered for
// document.text: an array, not a map by name, since documents kept for
// highlighting (doccache.go) are many and a map of eleven fields was a
// third of each one's memory.
var textFields = [...]string{fieldTitle, fieldSummary, fieldBody, fieldCode, fieldSignals, fieldSources, fieldOrgText,
	fieldKorean, fieldKoTitle, fieldWords, fieldAll}

const numTextFields = len(textFields)

// textField is the number of the text field name, or -1.
func textField(name string) int {
	for i, f := range textFields {
		if f == name {
			return i
		}
	}
	return -1
}

// field returns the segments of the text field name (none for a field a
// document does not hold).
func (d *document) field(name string) []segment {
	if i := textField(name); i >= 0 {
		return d.text[i]
	}
	return nil
}

// appendTo adds segs to the text field name, which must be one of
// textFields.
func (d *document) appendTo(name string, segs ...segment) {
	i := textField(name)
	d.text[i] = append(d.text[i], segs...)
}

// compact moves every field's segments into one block of the exact size:
// built by appends, the slices hold spare room, and a document kept for
// highlighting keeps it as long as it is kept.
func (d *document) compact() {
	n := 0
	for _, segs := range d.text {
		n += len(segs)
	}
	block := make([]segment, 0, n)
	for i, segs := range d.text {
		start := len(block)
		block = append(block, segs...)
		d.text[i] = block[start:len(block):len(block)]
	}
}

// wordToken is one token of the typo vocabulary and where it is.
type wordToken struct {
	term            string
	pos, start, end int
}

// wordTokens analyses the fieldWords segments with an (once per document).
func (d *document) wordTokens(an analysis.Analyzer) [][]wordToken {
	d.wordsOnce.Do(func() {
		segs := d.field(fieldWords)
		d.words = make([][]wordToken, len(segs))
		for i, s := range segs {
			toks := an.Analyze([]byte(s.text))
			out := make([]wordToken, len(toks))
			for j, t := range toks {
				out[j] = wordToken{term: string(t.Term), pos: t.Position, start: t.Start, end: t.End}
			}
			d.words[i] = out
		}
	})
	return d.words
}

func newDocument(id string) *document {
	return &document{id: id}
}

func (d *document) add(field, key, text string) {
	if text = strings.TrimSpace(text); text != "" {
		d.appendTo(field, segment{key, text})
	}
}

// addSections splits each body section into prose and code blocks: code is
// indexed apart (with less weight) because the same kubectl lines appear in
// every playbook and would otherwise drown the prose.
func (d *document) addSections(secs []library.Section) {
	for _, s := range secs {
		prose := s.Text
		for _, c := range s.Commands {
			prose = strings.Replace(prose, c, " ", 1)
			d.add(fieldCode, "#"+s.ID, c)
		}
		d.add(fieldBody, "#"+s.ID, prose)
	}
}

// finish derives the text fields that copy others: Korean prose and the
// unstemmed vocabulary for typo matching.
func (d *document) finish() {
	for _, field := range []string{fieldTitle, fieldSummary, fieldBody, fieldSources} {
		for _, s := range d.field(field) {
			if hasHangul(s.text) {
				d.appendTo(fieldKorean, s)
				if field == fieldTitle || field == fieldSummary {
					d.appendTo(fieldKoTitle, s)
				}
			}
		}
	}
	// Body prose is left out of the typo vocabulary: it would double the
	// indexed text, and people misspell the names of things (Karpenter,
	// certificate, throttling), which titles and summaries hold.
	for _, field := range []string{fieldTitle, fieldSummary, fieldSignals, fieldSources, fieldOrgText} {
		d.appendTo(fieldWords, d.field(field)...)
	}
	for _, field := range []string{fieldTitle, fieldSummary, fieldSignals, fieldOrgText, fieldSources, fieldBody} {
		d.appendTo(fieldAll, d.field(field)...)
	}
}

// addIdentifiers extracts the identifiers of the text for the ident field.
// Only indexing needs them, not highlighting, which rebuilds documents too.
func (d *document) addIdentifiers() {
	seen := map[string]bool{}
	for _, field := range []string{fieldTitle, fieldSummary, fieldBody, fieldCode, fieldSignals} {
		for _, s := range d.field(field) {
			for _, id := range identifiers(s.text) {
				if !seen[id] {
					seen[id] = true
					d.ident = append(d.ident, id)
				}
			}
		}
	}
}

func incidentDocument(in *library.Incident) *document {
	d := newDocument(in.ID)
	d.add(fieldTitle, "title", in.Title)
	d.add(fieldSummary, "summary", in.Summary)
	d.add(fieldBody, "#trigger", in.Trigger)
	d.add(fieldBody, "#detection", in.Detection)
	d.addSections(in.SectionTexts())
	d.add(fieldOrgText, "", in.Organization)
	for _, s := range in.Sources {
		d.add(fieldSources, "sources", s.Title)
	}
	d.addKorean(in.TitleKo, in.SummaryKo, nil)
	if in.Ko != nil {
		d.addKorean("", "", in.Ko.SectionTexts())
	}
	d.finish()
	return d
}

// addKorean indexes the Korean title, summary and body. Their prose goes
// to the Korean fields only (commands are the English file's), under the
// same section anchors, so a Korean fragment links to its section in
// either language.
func (d *document) addKorean(title, summary string, secs []library.Section) {
	d.add(fieldKoTitle, "title_ko", title)
	d.add(fieldKoTitle, "summary_ko", summary)
	d.add(fieldKorean, "title_ko", title)
	d.add(fieldKorean, "summary_ko", summary)
	for _, s := range secs {
		prose := s.Text
		for _, c := range s.Commands {
			prose = strings.Replace(prose, c, " ", 1)
		}
		d.add(fieldKorean, "#"+s.ID, prose)
	}
}

func playbookDocument(pb *library.Playbook) *document {
	d := newDocument(pb.ID)
	d.add(fieldTitle, "title", pb.Title)
	d.add(fieldSummary, "summary", pb.Summary)
	d.addSections(pb.Sections)
	for _, s := range pb.Signals {
		d.add(fieldSignals, "signals", s)
	}
	if pb.Ko != nil {
		d.addKorean(pb.Ko.Title, pb.Ko.Summary, pb.Ko.Sections)
	}
	d.finish()
	return d
}

// orgKey is the filter and facet value of an organization: its slug, the
// one key URLs, the store and the MCP tools use, so "google-cloud-gke" in a
// URL finds "Google Cloud (GKE)" without a name lookup in between.
func orgKey(org string) string { return library.Slug(org) }
