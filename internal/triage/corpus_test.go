package triage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The corpus (testdata/corpus, see its README) holds texts that operators
// posted in public bug reports, forums and docs, each labelled with the route
// the thread's resolution supports. It is the classifier's measure: unlike the
// hand-written pastes, nobody wrote these texts for the classifier.
const (
	corpusDir = "testdata/corpus"
	// minTop1 and minTop3 are the accuracy the whole corpus must reach.
	minTop1 = 0.92
	minTop3 = 0.98
	// minSection is the share of texts labelled with a playbook section
	// whose first route is right and comes with that section: the outcome
	// the wizard links, not only the family.
	minSection = 0.9
)

// corpusSplits are the batches of the corpus, in the order they were added.
var corpusSplits = []string{"dev", "holdout", "holdout2", "holdout3", "holdout4", "holdout5"}

// corpusText is one file of the corpus: its header and the text as posted.
type corpusText struct {
	Name      string
	Source    string
	Retrieved string
	Kind      string
	Language  string
	Route     string
	// Section is the playbook section (the tree outcome) the thread's
	// resolution supports, for routes whose playbook treats several
	// causes; empty when the text was labelled with the route only.
	Section      string
	Alternatives []string
	Decoy        bool
	Split        string
	Why          string
	Text         string
}

// accepts reports whether a route is the labelled one or an alternative an
// expert would accept as the first answer.
func (c corpusText) accepts(route string) bool {
	return route == c.Route || slices.Contains(c.Alternatives, route)
}

func readCorpus(t *testing.T) []corpusText {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusText
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseCorpusText(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		c.Name = filepath.Base(f)
		out = append(out, c)
	}
	return out
}

// parseCorpusText splits a corpus file into its header (the "key: value"
// lines between the first two "---" lines) and the text. Values are taken
// verbatim after the first colon, so a "why" sentence may hold colons of its
// own; alternatives are a bracketed, comma-separated list.
func parseCorpusText(data []byte) (corpusText, error) {
	var c corpusText
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return c, fmt.Errorf("no header: the file must start with a line ---")
	}
	head, body, ok := bytes.Cut(data[4:], []byte("\n---\n"))
	if !ok {
		return c, fmt.Errorf("header not closed by a line ---")
	}
	for i, line := range strings.Split(string(head), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return c, fmt.Errorf("header line %d: want key: value", i+2)
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "source":
			c.Source = val
		case "retrieved":
			c.Retrieved = val
		case "kind":
			c.Kind = val
		case "language":
			c.Language = val
		case "route":
			c.Route = val
		case "section":
			c.Section = val
		case "alternatives":
			for _, a := range strings.Split(strings.Trim(val, "[]"), ",") {
				if a = strings.TrimSpace(a); a != "" {
					c.Alternatives = append(c.Alternatives, a)
				}
			}
		case "decoy":
			c.Decoy = val == "true"
		case "split":
			c.Split = val
		case "why":
			c.Why = val
		default:
			return c, fmt.Errorf("header line %d: unknown key %q", i+2, key)
		}
	}
	c.Text = string(body)
	return c, nil
}

// TestCorpusHeaders checks that every corpus file says where it came from and
// names routes that exist, and that the corpus keeps the shape the measure
// relies on.
func TestCorpusHeaders(t *testing.T) {
	texts := readCorpus(t)
	cat := loadReal(t)
	if len(texts) < 200 {
		t.Errorf("the corpus has %d texts; want at least 200", len(texts))
	}
	perRoute := map[string]int{}
	for _, c := range texts {
		perRoute[c.Route]++
		if !strings.HasPrefix(c.Source, "https://") && !strings.HasPrefix(c.Source, "http://") {
			t.Errorf("%s: source %q is not a URL", c.Name, c.Source)
		}
		if !slices.Contains(corpusSplits, c.Split) {
			t.Errorf("%s: split %q, want one of %v", c.Name, c.Split, corpusSplits)
		}
		for _, r := range append([]string{c.Route}, c.Alternatives...) {
			if !slices.Contains(Routes, r) {
				t.Errorf("%s: unknown route %q", c.Name, r)
			}
		}
		if strings.TrimSpace(c.Text) == "" {
			t.Errorf("%s: no text", c.Name)
		}
		if c.Section != "" && !cat.hasOutcome(c.Route, c.Section) {
			t.Errorf("%s: no outcome of route %s leads to section %q", c.Name, c.Route, c.Section)
		}
	}
	for _, r := range Routes {
		if perRoute[r] < 8 {
			t.Errorf("route %s has %d corpus texts; want at least 8", r, perRoute[r])
		}
	}
}

// hasOutcome reports whether some outcome of the trees sends route to
// section, so a corpus label names an outcome the wizard can link.
func (c *Catalog) hasOutcome(route, section string) bool {
	for _, n := range c.nodes {
		if n.IsOutcome() && n.Outcome.Route == route && n.Outcome.Section == section {
			return true
		}
	}
	return false
}

// walkedSection is the playbook section of the outcome the wizard reaches
// from the root with the paste's answers, or "" when the walk stops at a
// question.
func (c *Catalog) walkedSection(res Result) string {
	w, err := c.Walk(State{Tree: c.Root().ID}, Hints{Paste: res.Answers})
	if err != nil || !w.Node.IsOutcome() {
		return ""
	}
	return w.Node.Outcome.Section
}

// corpusScore is the accuracy of one part of the corpus.
type corpusScore struct {
	n, top1, top1Strict, top3, none int
	// sectioned counts the texts labelled with a section, sectionRight
	// those whose first route is the labelled one with that section and
	// whose answers walk the wizard to an outcome with that section.
	sectioned, sectionRight int
}

func (s *corpusScore) add(c corpusText, res Result, walked string) {
	s.n++
	if c.Section != "" {
		s.sectioned++
		if len(res.Routes) > 0 && res.Routes[0].Route == c.Route && res.Routes[0].Section == c.Section && walked == c.Section {
			s.sectionRight++
		}
	}
	if len(res.Routes) == 0 {
		s.none++
		return
	}
	if c.accepts(res.Routes[0].Route) {
		s.top1++
	}
	if res.Routes[0].Route == c.Route {
		s.top1Strict++
	}
	for i, r := range res.Routes {
		if i < 3 && c.accepts(r.Route) {
			s.top3++
			break
		}
	}
}

func (s corpusScore) rate(k int) float64 {
	if s.n == 0 {
		return 0
	}
	return float64(k) / float64(s.n)
}

func (s corpusScore) String() string {
	out := fmt.Sprintf("%d texts: top-1 %.3f (%d; exact label %.3f), top-3 %.3f (%d), nothing found %d",
		s.n, s.rate(s.top1), s.top1, s.rate(s.top1Strict), s.rate(s.top3), s.top3, s.none)
	if s.sectioned > 0 {
		out += fmt.Sprintf("; section right %d of %d", s.sectionRight, s.sectioned)
	}
	return out
}

// TestCorpusAccuracy is the classifier's acceptance test on real texts: the
// first route must be the labelled one (or an accepted alternative) for
// minTop1 of the corpus, and among the first three for minTop3. The splits
// are reported apart: dev (read while the rules were written), holdout (not
// read), and holdout2, a second batch chosen without reading the rules.
// holdout2 is itself halved by file number (see view): its even-numbered
// files, holdout2-dev, were read to find the families the rules missed; its
// odd-numbered files, holdout2-blind, were not, and their results stay
// hidden unless CORPUS_BLIND=show (figures and confusion matrix) or
// CORPUS_BLIND=misses (also each miss by name), so that looking at them is a
// decision and not a side effect of -v. holdout3, a third batch gathered
// after the rules above were written, is reported on its own with its own
// confusion matrix; its figure before any rule was changed for it is kept in
// the corpus README, and so is holdout4's, the batch of the everyday
// families (config errors, Jobs, rollouts, Services, ingress, certificates,
// webhooks, RBAC, volumes, disk, autoscaling), and holdout5's, a second batch
// of those families. With -v the test prints the confusion matrix of
// the read texts and every miss among them. CORPUS_SPLIT=<split or view>
// limits the run to those files and skips the thresholds.
func TestCorpusAccuracy(t *testing.T) {
	c := loadReal(t)
	texts := readCorpus(t)
	only := os.Getenv("CORPUS_SPLIT")
	blind := os.Getenv("CORPUS_BLIND")
	showBlind := blind == "show" || blind == "misses"
	views := []string{"dev", "holdout", "holdout2-dev", "holdout2-blind", "holdout2", "holdout3", "holdout4", "holdout5", "all"}
	scores := map[string]*corpusScore{}
	for _, v := range views {
		scores[v] = &corpusScore{}
	}
	confusion := map[string]map[string]int{}      // read texts: label -> first route -> count
	confusionBlind := map[string]map[string]int{} // holdout2-blind, printed only with CORPUS_BLIND=show
	confusion3 := map[string]map[string]int{}     // holdout3
	confusion4 := map[string]map[string]int{}     // holdout4: the everyday families
	confusion5 := map[string]map[string]int{}     // holdout5: the everyday families, second batch
	for _, text := range texts {
		v := view(text)
		if only != "" && text.Split != only && v != only {
			continue
		}
		res := c.Classify(text.Text)
		walked := ""
		if text.Section != "" {
			walked = c.walkedSection(res)
		}
		scores[v].add(text, res, walked)
		if v != text.Split {
			scores[text.Split].add(text, res, walked)
		}
		scores["all"].add(text, res, walked)
		got := "(none)"
		if len(res.Routes) > 0 {
			got = res.Routes[0].Route
			if text.accepts(got) {
				got = text.Route
			}
		}
		cm := confusion
		switch v {
		case "holdout2-blind":
			cm = confusionBlind
		case "holdout3":
			cm = confusion3
		case "holdout4":
			cm = confusion4
		case "holdout5":
			cm = confusion5
		}
		if cm[text.Route] == nil {
			cm[text.Route] = map[string]int{}
		}
		cm[text.Route][got]++
		if (v == "dev" || v == "holdout2-dev" || v == "holdout3" || v == "holdout4" || v == "holdout5" || (v == "holdout2-blind" && blind == "misses")) && got != text.Route {
			var ranked []string
			for _, r := range res.Routes {
				ranked = append(ranked, r.Route+" "+ftoa(r.Confidence))
			}
			t.Logf("miss %s: want %s, got [%s]", text.Name, text.Route, strings.Join(ranked, ", "))
		}
		if text.Section != "" && v != "holdout2-blind" && len(res.Routes) > 0 && res.Routes[0].Route == text.Route &&
			(res.Routes[0].Section != text.Section || walked != text.Section) {
			t.Logf("section miss %s: want %s, got %s, the walk ends at %q", text.Name, text.Section, res.Routes[0].Section, walked)
		}
	}
	for _, v := range views {
		if (v == "holdout2-blind" || v == "holdout2" || v == "all") && !showBlind {
			t.Logf("%s: hidden (CORPUS_BLIND=show prints it)", v)
			continue
		}
		t.Logf("%s: %s", v, scores[v])
	}
	t.Logf("confusion matrix of the texts read (dev, holdout, holdout2-dev; rows: label, columns: first route; only cells off the diagonal are named):\n%s", confusionTable(confusion))
	if showBlind && len(confusionBlind) > 0 {
		t.Logf("holdout2-blind confusion matrix:\n%s", confusionTable(confusionBlind))
	}
	if len(confusion3) > 0 {
		t.Logf("holdout3 confusion matrix:\n%s", confusionTable(confusion3))
	}
	if len(confusion4) > 0 {
		t.Logf("holdout4 confusion matrix:\n%s", confusionTable(confusion4))
	}
	if len(confusion5) > 0 {
		t.Logf("holdout5 confusion matrix:\n%s", confusionTable(confusion5))
	}
	if only != "" {
		return
	}
	all := scores["all"]
	if all.rate(all.top1) < minTop1 {
		t.Errorf("top-1 accuracy %.3f on the corpus is below %.2f", all.rate(all.top1), minTop1)
	}
	if all.rate(all.top3) < minTop3 {
		t.Errorf("top-3 accuracy %.3f on the corpus is below %.2f", all.rate(all.top3), minTop3)
	}
	if all.sectioned > 0 && float64(all.sectionRight)/float64(all.sectioned) < minSection {
		t.Errorf("section accuracy %d of %d on the texts labelled with one is below %.2f", all.sectionRight, all.sectioned, minSection)
	}
}

// view is the part of the corpus a text is reported in: its split, except
// that holdout2 is halved by file number, even numbers (c260, c262, ...)
// into holdout2-dev and odd numbers into holdout2-blind.
func view(c corpusText) string {
	if c.Split != "holdout2" {
		return c.Split
	}
	var n int
	if _, err := fmt.Sscanf(c.Name, "c%d-", &n); err == nil && n%2 == 0 {
		return "holdout2-dev"
	}
	return "holdout2-blind"
}

// confusionTable prints, per labelled route, how many texts got it first and
// where the others went.
func confusionTable(m map[string]map[string]int) string {
	labels := make([]string, 0, len(m))
	for l := range m {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var b strings.Builder
	fmt.Fprintf(&b, "  %-32s %5s %5s  %s\n", "label", "texts", "right", "went instead to")
	for _, l := range labels {
		total, right := 0, m[l][l]
		var wrong []string
		for got, n := range m[l] {
			total += n
			if got != l {
				wrong = append(wrong, fmt.Sprintf("%s x%d", got, n))
			}
		}
		sort.Strings(wrong)
		fmt.Fprintf(&b, "  %-32s %5d %5d  %s\n", l, total, right, strings.Join(wrong, ", "))
	}
	return b.String()
}
