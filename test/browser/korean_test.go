package browser

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"casebook/internal/i18n"
)

// uiText is the words a reader meets on the page as interface, not as
// content: the page's text and its readable attributes, without what is
// quoted as the software prints it (code, pre, the paste box, quoted
// messages), content marked as English for want of a Korean twin
// (lang="en"), cited sources, organisation names and dates (.meta), and
// authored content (incident titles, summaries, document bodies, answers
// that quote scheduler messages), which content lint checks instead.
const uiText = `(() => {
  const skip = 'script, style, code, pre, textarea, [lang="en"], [data-testid="sources"], .meta, .doc-body, .summary, h1,' +
    ' .cards h3, a[href^="/incidents/"], [data-testid="facet-org"], [data-testid="evidence"], [data-testid="answer"],' +
    ' .crumbs a, .graph-canvas';
  const body = document.body.cloneNode(true);
  body.querySelectorAll(skip).forEach(e => e.remove());
  const attrs = [];
  body.querySelectorAll('[title], [aria-label], [placeholder], [alt]').forEach(e => {
    for (const a of ['title', 'aria-label', 'placeholder', 'alt']) if (e.getAttribute(a)) attrs.push(e.getAttribute(a));
  });
  // The language switch names the other language in itself, on purpose.
  body.querySelectorAll('[data-testid="lang-switch"]').forEach(e => e.remove());
  return body.textContent + ' ' + attrs.join(' ');
})()`

// allowedLatin are product names, and the words Korean SREs type in Latin
// script (the list in the Korean style guide, from the seeds).
var allowedLatin = map[string]bool{"kubernetes": true, "zone": true, "casebook": true, "nvidia": true,
	"kubectl": true, "namespace": true, "node": true, "nodes": true, "describe": true, "cache": true, "limit": true,
	"memory": true, "replica": true, "logs": true, "fallback": true, "pending": true, "taint": true, "toleration": true,
	"operator": true, "allocatable": true, "throttling": true, "utilization": true, "root": true,
	// Kubernetes kinds, states and units, names of formats.
	"gpu": true, "cpu": true, "llm": true, "api": true, "json": true, "atom": true, "markdown": true, "mib": true, "utc": true, "job": true,
	"cronjob": true, "secret": true, "role": true, "ready": true, "evicted": true, "oomkilled": true,
	"crashloopbackoff": true, "in-cluster": true,
	// The Kubernetes and GPU vocabulary the style guide keeps in Latin
	// script (rule 1), and kinds, reasons and fields as the software
	// prints them; the probe and error catalogues use them in English.
	"device": true, "plugin": true, "preemption": true, "daemonset": true, "kubelet": true, "toolkit": true,
	"failedscheduling": true, "replicaset": true, "priority": true, "priorityclass": true, "autoscaler": true,
	"ingress": true, "webhook": true, "admission": true}

// products are names written as their makers write them, taken out of the
// text before it is read for English words.
var products = regexp.MustCompile(`NVIDIA Container Toolkit|GPU Operator`)

// identifiers are incident ids and file paths, which no language spells
// differently.
var identifiers = regexp.MustCompile(`\b[A-Z]+-\d+\b|[\w./-]+\.(?:yaml|yml|md|json)\b`)

// quoted is a message quoted as the software prints it.
var quoted = regexp.MustCompile(`"[^"]*"|“[^”]*”|'[^']*'`)

// englishWords are the words of the English catalogue, less the ones
// Korean text writes in Latin script too (allowedLatin): on a Korean page
// any of them is English UI left untranslated. The list is not taken from
// the Korean catalogue, so an English string copied into it is caught.
func englishWords() map[string]bool {
	cat := i18n.Messages()
	words := regexp.MustCompile(`[A-Za-z][A-Za-z'-]+`)
	placeholder := regexp.MustCompile(`\{[a-z_]+\}`)
	out := map[string]bool{}
	for _, k := range cat.Keys(i18n.EN) {
		m, _ := cat.Message(i18n.EN, k)
		for _, s := range m.Forms {
			for _, w := range words.FindAllString(placeholder.ReplaceAllString(s, ""), -1) {
				if w = strings.ToLower(w); len(w) > 2 && !allowedLatin[w] {
					out[w] = true
				}
			}
		}
	}
	return out
}

// assertKorean fails when the page's interface holds English.
func assertKorean(t *testing.T, tb *tab, where string, english map[string]bool) {
	t.Helper()
	if lang := eval[string](tb, `document.documentElement.lang`); lang != "ko" {
		t.Fatalf("%s: <html lang=%q>, want ko", where, lang)
	}
	text := identifiers.ReplaceAllString(products.ReplaceAllString(quoted.ReplaceAllString(eval[string](tb, uiText), " "), " "), " ")
	var found []string
	for _, loc := range regexp.MustCompile(`[A-Za-z][A-Za-z'-]+`).FindAllStringIndex(text, -1) {
		w := text[loc[0]:loc[1]]
		if english[strings.ToLower(w)] && !allowedLatin[strings.ToLower(w)] && !slices.Contains(found, w) {
			found = append(found, w)
			t.Logf("%s: %q in …%s…", where, w, strings.Join(strings.Fields(text[max(0, loc[0]-80):min(len(text), loc[1]+80)]), " "))
		}
	}
	sort.Strings(found)
	if len(found) > 0 {
		tb.shot("english-" + where)
		t.Errorf("%s: English UI words on the Korean page: %v", where, found)
	}
	if !regexp.MustCompile(`\p{Hangul}`).MatchString(text) {
		t.Errorf("%s: no Korean on the Korean page", where)
	}
}

// The browser test: switch the language on the library, then read
// an incident, a playbook and a whole wizard walk in Korean and find no
// English interface text; the walk ends on the Korean playbook section.
func TestKoreanPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	english := englishWords()
	if len(english) < 100 || !english["library"] || !english["clear"] || english["kubectl"] {
		t.Fatalf("the English word list is wrong: %d words", len(english))
	}

	// A browser context of its own: the language cookie must not reach the
	// other tests' tabs.
	tb := e.tab(t, chromedp.WithNewBrowserContext())
	tb.open("/?component=gpu-driver")
	if lang := eval[string](tb, `document.documentElement.lang`); lang != "en" {
		t.Fatalf("first visit in %q, want en", lang)
	}
	tb.follow("switch to Korean", chromedp.Click(chromedp.CSS(testID("lang-switch"))))
	if loc := tb.location(); !strings.Contains(loc, "component=gpu-driver") || !strings.Contains(loc, "lang=ko") {
		t.Errorf("the switch lost the filter: %s", loc)
	}
	tb.shot("01-library-ko")
	assertKorean(t, tb, "library", english)
	body := eval[string](tb, `document.body.innerText`)
	for _, want := range []string{"적용된 필터", "추천 필터", "그래프", "모두 풀기"} {
		if !strings.Contains(body, want) {
			t.Errorf("Korean library lacks %q", want)
		}
	}
	if h := eval[string](tb, `document.querySelector('#results-heading').innerText`); !regexp.MustCompile(`^사례 \d+건$`).MatchString(strings.TrimSpace(h)) {
		t.Errorf("heading %q, want 사례 N건", h)
	}
	if c := eval[string](tb, `document.querySelector('[data-testid="countline"]').innerText`); !regexp.MustCompile(`\d+건 중 1~\d+번째`).MatchString(c) {
		t.Errorf("count line %q, want N건 중 1~N번째", c)
	}

	// The choice is remembered: a plain link stays Korean.
	tb.follow("open the first case", chromedp.Click(chromedp.CSS(`[data-testid="case"] h3 a`)))
	tb.shot("02-incident-ko")
	assertKorean(t, tb, "incident", english)

	tb.open("/incidents/IL-0021")
	if n := eval[int](tb, `document.querySelectorAll('[data-testid="english-only-body"]').length`); n != 0 {
		t.Errorf("IL-0021 has a Korean body but the page shows English")
	}
	if h := eval[string](tb, `document.querySelector('[data-testid="section-symptom"] h2').innerText`); h != "증상" {
		t.Errorf("IL-0021 symptom heading %q, want 증상", h)
	}
	assertKorean(t, tb, "incident-IL-0021", english)

	tb.open("/playbooks/pod-pending")
	tb.shot("03-playbook-ko")
	assertKorean(t, tb, "playbook", english)

	// A wizard walk in Korean, first answer each time, to an outcome.
	tb.open("/triage")
	assertKorean(t, tb, "triage-start", english)
	tb.follow("pick the first symptom", chromedp.Click(chromedp.CSS(`[data-testid="start"] [data-testid="answer"]`)))
	for step := 0; step < 12; step++ {
		if eval[bool](tb, `!!document.querySelector('[data-testid="outcome"]')`) {
			break
		}
		assertKorean(t, tb, "triage-question", english)
		tb.follow("answer", chromedp.Click(chromedp.CSS(`[data-testid="question"] [data-testid="answer"]`)))
	}
	if !eval[bool](tb, `!!document.querySelector('[data-testid="outcome"]')`) {
		t.Fatal("the Korean walk reached no outcome")
	}
	tb.shot("04-outcome-ko")
	assertKorean(t, tb, "triage-outcome", english)
	href := eval[string](tb, `document.querySelector('[data-testid="playbook-link"]').getAttribute('href')`)
	anchor := href[strings.Index(href, "#")+1:]
	tb.follow("open the playbook section", chromedp.Click(chromedp.CSS(testID("playbook-link"))))
	if got := eval[string](tb, `location.hash`); got != "#"+anchor {
		t.Errorf("landed on %q, want #%s", got, anchor)
	}
	if !eval[bool](tb, `!!document.getElementById(`+"`"+anchor+"`"+`)`) {
		t.Errorf("the Korean playbook has no #%s", anchor)
	}
	heading := eval[string](tb, `(document.getElementById(`+"`"+anchor+"`"+`).querySelector('h2,h3') || document.getElementById(`+"`"+anchor+"`"+`)).innerText`)
	if !regexp.MustCompile(`\p{Hangul}`).MatchString(heading) {
		t.Errorf("the walk ends on section %q, not in Korean", heading)
	}
	assertKorean(t, tb, "playbook-section", english)

	// Back to English with the switch: the same page in English.
	tb.follow("switch to English", chromedp.Click(chromedp.CSS(testID("lang-switch"))))
	if lang := eval[string](tb, `document.documentElement.lang`); lang != "en" {
		t.Errorf("after switching back the page is %q", lang)
	}
}
