package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"casebook/internal/library"
)

// Options controls Generate.
type Options struct {
	N    int    // incidents to write
	Seed uint64 // the same seed and N give the same bytes
	// Workers write files in parallel; the output does not depend on it
	// because every incident has its own random stream.
	Workers int
}

// Mixing weights of the text model. They are choices, not measurements:
// how much of a generated incident follows the real incident it is modelled
// on, how often the text follows real word pairs, and how many words come
// from the growing rare-word lexicon (see tailWords).
const (
	localShare   = 0.5
	followChain  = 0.8
	keepTerm     = 0.6  // chance to keep each term of the model incident
	uniformTerm  = 0.1  // chance to draw a term uniformly from the facet
	tailShare    = 0.02 // of tokens
	tailExponent = 1.1
	tailPerDoc   = 20 // rare-lexicon size per incident
	realOrgShare = 0.25
)

var orgSuffixes = []string{"", "Labs", "Cloud", "Systems", "AI", "Bank", "Games", "Health", "Logistics", "Media"}

// supportDirs are copied from the source library so the output is a whole
// library: playbooks for incidents to link to, triage trees that lint
// checks against the playbooks.
// Gap checks are left out: they cite real incidents by id, which a synthetic
// library does not have, and they play no part in what is measured.
var supportDirs = []string{"playbooks", "triage"}

// Generate writes a library of opt.N generated incidents into dir, with the
// taxonomy, playbooks, triage trees and checks of src. dir/incidents must
// not exist yet or be empty.
func Generate(dir string, src fs.FS, st *Stats, opt Options) error {
	if opt.N < 1 || opt.N > 999999 {
		return fmt.Errorf("corpus: N must be between 1 and 999999, not %d", opt.N)
	}
	if len(st.docs) == 0 {
		return errors.New("corpus: the source library has no incidents to measure")
	}
	incDir := filepath.Join(dir, "incidents")
	if entries, err := os.ReadDir(incDir); err == nil && len(entries) > 0 {
		return fmt.Errorf("corpus: %s is not empty", incDir)
	}
	if err := os.MkdirAll(incDir, 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if err := copySupport(dir, src); err != nil {
		return err
	}
	workers := max(opt.Workers, 1)
	next := make(chan int)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[w] != nil {
					continue
				}
				name, data := st.incident(i, opt)
				errs[w] = os.WriteFile(filepath.Join(incDir, name), data, 0o644)
			}
		}()
	}
	for i := 1; i <= opt.N; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	return nil
}

func copySupport(dir string, src fs.FS) error {
	files := []string{"taxonomy.yaml"}
	for _, d := range supportDirs {
		err := fs.WalkDir(src, d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == d {
					return fs.SkipDir
				}
				return err
			}
			if !e.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("corpus: copy %s: %w", d, err)
		}
	}
	for _, p := range files {
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return fmt.Errorf("corpus: copy: %w", err)
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("corpus: copy: %w", err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return fmt.Errorf("corpus: copy: %w", err)
		}
	}
	return nil
}

// incident generates incident number i: its file name and bytes.
func (st *Stats) incident(i int, opt Options) (string, []byte) {
	r := rand.New(rand.NewPCG(opt.Seed, uint64(i)))
	tmpl := r.IntN(len(st.docs))
	w := &writer{r: r, lex: st.lex, local: st.docs[tmpl], global: st.global, follow: followChain, localShare: localShare,
		tail: &tailWords{share: tailShare}}
	w.tailRank = rand.NewZipf(r, tailExponent, 2, uint64(tailPerDoc*opt.N))

	id := fmt.Sprintf("IL-%04d", i)
	title := w.phrase(st.titles, draw(r, st.titleWords))
	if title == "" {
		title = "Generated incident " + id
	}
	var b strings.Builder
	b.WriteString("---\n")
	field(&b, "id", id)
	field(&b, "title", title)
	field(&b, "summary", w.line(draw(r, st.summaryWords)))
	titleKo := w.phrase(st.koTitles, max(draw(r, st.koTitleWords), 2))
	if titleKo == "" {
		titleKo = "생성된 사례 " + id
	}
	summaryKo := w.phrase(st.koSummaries, max(draw(r, st.koSummaryWords), 4))
	if summaryKo == "" {
		summaryKo = "벤치마크용으로 생성한 사례입니다."
	}
	// Words chained from product names ("Google Kubernetes Engine") would
	// leave Kubernetes alone in a Korean sentence, which the style lint rules out.
	field(&b, "title_ko", strings.ReplaceAll(titleKo, "Kubernetes", "쿠버네티스"))
	field(&b, "summary_ko", strings.ReplaceAll(summaryKo, "Kubernetes", "쿠버네티스"))
	date := st.date(r)
	field(&b, "organization", st.org(r, opt.N))
	field(&b, "date", date)
	for _, f := range termFacets {
		fmt.Fprintf(&b, "%s: [%s]\n", frontKey(f), strings.Join(st.pickTerms(r, f, tmpl), ", "))
	}
	if n := draw(r, st.triggerWords); n > 0 {
		field(&b, "trigger", w.line(n))
	}
	if n := draw(r, st.detectionWords); n > 0 {
		field(&b, "detection", w.line(n))
	}
	b.WriteString("sources:\n")
	for k := range max(draw(r, st.sourceCounts), 1) {
		fmt.Fprintf(&b, "  - url: https://incidents.example.com/%s/%s-%d\n", date[:4], strings.ToLower(id), k+1)
		title := yamlString(w.phrase(st.global, 4+r.IntN(6)))
		fmt.Fprintf(&b, "    title: %s\n", title)
		fmt.Fprintf(&b, "    kind: %s\n", st.sourceKinds[r.IntN(len(st.sourceKinds))])
		fmt.Fprintf(&b, "    retrieved: %s-01-15\n", date[:4])
		if k == 0 { // the title again: a drawn quote would shift every later draw
			fmt.Fprintf(&b, "    quote: %s\n", title)
		}
	}
	if pbs := st.pickPlaybooks(r); len(pbs) > 0 {
		fmt.Fprintf(&b, "playbooks: [%s]\n", strings.Join(pbs, ", "))
	}
	b.WriteString("---\n")
	for s, name := range library.IncidentSections {
		fmt.Fprintf(&b, "\n## %s\n", name)
		w.section(&b, st.sections[s][r.IntN(len(st.sections[s]))])
	}
	return id + "-" + slug(title) + ".md", []byte(b.String())
}

// section writes a body with the shape of a real section, its length
// scaled by a random factor between 0.75 and 1.25.
func (w *writer) section(b *strings.Builder, sh sectionShape) {
	words := max(int(float64(sh.words)*(0.75+0.5*w.r.Float64())), 3)
	var body strings.Builder
	if sh.items > 0 {
		per := max(words/sh.items, 3)
		for range sh.items {
			body.WriteString("- ")
			w.sentences(&body, per, false)
			body.WriteString("\n")
		}
	} else {
		per := max(words/sh.paragraphs, 3)
		for p := range sh.paragraphs {
			if p > 0 {
				body.WriteString("\n\n")
			}
			w.sentences(&body, per, false)
		}
		body.WriteString("\n")
	}
	b.WriteString(body.String())
}

// line is n words of prose on one line, for a front-matter field.
func (w *writer) line(n int) string {
	var b strings.Builder
	w.sentences(&b, max(n, 3), false)
	return strings.Join(strings.Fields(b.String()), " ")
}

func draw(r *rand.Rand, obs []int) int {
	if len(obs) == 0 {
		return 0
	}
	return obs[r.IntN(len(obs))]
}

// pickTerms draws as many terms as a real incident lists for facet f,
// keeping some of the model incident's terms so that terms co-occur as they
// do in the library, and at least one for the required facets.
func (st *Stats) pickTerms(r *rand.Rand, f library.Facet, tmpl int) []string {
	n := draw(r, st.termCounts[f])
	if f != library.FacetFactor {
		n = max(n, 1)
	}
	var out []string
	for _, u := range st.terms[tmpl] {
		if u.facet == f && len(out) < n && r.Float64() < keepTerm {
			out = append(out, u.id)
		}
	}
	all := st.tax.IDs(f)
	for tries := 0; len(out) < n && tries < 20*n; tries++ {
		var id string
		if pool := st.termPool[f]; len(pool) > 0 && r.Float64() >= uniformTerm {
			id = pool[r.IntN(len(pool))]
		} else {
			id = all[r.IntN(len(all))]
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func (st *Stats) pickPlaybooks(r *rand.Rand) []string {
	n := draw(r, st.playbookCounts)
	var out []string
	for tries := 0; len(out) < n && tries < 20*n && len(st.playbookPool) > 0; tries++ {
		id := st.playbookPool[r.IntN(len(st.playbookPool))]
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// org is a real organisation a quarter of the time, and otherwise one of
// about n/3 made-up ones drawn by Zipf rank, so a few organisations report
// many incidents and most report one or two.
func (st *Stats) org(r *rand.Rand, n int) string {
	if r.Float64() < realOrgShare {
		return st.orgs[r.IntN(len(st.orgs))]
	}
	k := rand.NewZipf(r, 1.2, 1, uint64(max(n/3, 10))).Uint64()
	name := tailWord(k + 7919)
	name = strings.ToUpper(name[:1]) + name[1:]
	if s := orgSuffixes[k%uint64(len(orgSuffixes))]; s != "" {
		name += " " + s
	}
	return name
}

func (st *Stats) date(r *rand.Rand) string {
	y := st.years[r.IntN(len(st.years))]
	m := 1 + r.IntN(12)
	if r.Float64() < st.monthOnly {
		return fmt.Sprintf("%04d-%02d", y, m)
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, 1+r.IntN(28))
}

func frontKey(f library.Facet) string {
	switch f {
	case library.FacetDomain:
		return "domains"
	case library.FacetComponent:
		return "components"
	case library.FacetCause:
		return "causes"
	case library.FacetSymptom:
		return "symptoms"
	}
	return "contributing_factors"
}

func field(b *strings.Builder, key, val string) {
	fmt.Fprintf(b, "%s: %s\n", key, yamlString(val))
}

var plainYAML = regexp.MustCompile(`^[\p{L}\p{N}(][^#:]*$`)

// yamlString writes s as a plain scalar when YAML reads it back unchanged
// and as a double-quoted one otherwise.
func yamlString(s string) string {
	if plainYAML.MatchString(s) && !strings.HasSuffix(s, " ") {
		return s
	}
	return strconv.Quote(s)
}

// slug is the file-name part after the id: the first words of the title.
func slug(title string) string {
	s := library.Slug(title)
	parts := strings.Split(s, "-")
	if len(parts) > 6 {
		parts = parts[:6]
	}
	s = strings.Join(parts, "-")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	if s == "" {
		return "incident"
	}
	return s
}
