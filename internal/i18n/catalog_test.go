package i18n

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"casebook/internal/library"
)

// Every key must exist in both languages, with the plural forms each
// language needs and the same placeholders, so no page ever shows a key or
// a half-filled sentence in one language.
func TestCatalogueComplete(t *testing.T) {
	c := Messages()
	en, ko := c.Keys(EN), c.Keys(KO)
	if len(en) < 50 {
		t.Fatalf("English catalogue has only %d keys", len(en))
	}
	for _, k := range en {
		if !slices.Contains(ko, k) {
			t.Errorf("key %q is in en.toml but not in ko.toml", k)
		}
	}
	for _, k := range ko {
		if !slices.Contains(en, k) {
			t.Errorf("key %q is in ko.toml but not in en.toml", k)
		}
	}
	for _, k := range en {
		me, _ := c.Message(EN, k)
		mk, ok := c.Message(KO, k)
		if !ok {
			continue
		}
		plural := len(me.Forms) > 1 || len(mk.Forms) > 1 || me.Forms["one"] != ""
		if plural {
			// English distinguishes one and other; Korean has one form.
			if me.Forms["one"] == "" || me.Forms["other"] == "" {
				t.Errorf("%s: English plural message needs one and other, has %v", k, keys(me.Forms))
			}
			if mk.Forms["other"] == "" {
				t.Errorf("%s: Korean plural message needs other", k)
			}
		}
		want := Placeholders(me.Forms["other"])
		for lang, m := range map[Lang]Message{EN: me, KO: mk} {
			for form, s := range m.Forms {
				// A sentence split around a link may end at the link in
				// one language: its "_end" piece may be empty.
				if strings.TrimSpace(s) == "" && !strings.HasSuffix(k, "_end") {
					t.Errorf("%s (%s %s) is empty", k, lang, form)
				}
				got := Placeholders(s)
				// {count} may be left out of a "one" form ("one case").
				if form == "one" {
					got = addIfMissing(got, "count", want)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s (%s %s): placeholders %v, English other has %v", k, lang, form, got, want)
				}
			}
		}
	}
}

func addIfMissing(got []string, name string, want []string) []string {
	if slices.Contains(want, name) && !slices.Contains(got, name) {
		got = append(got, name)
		slices.Sort(got)
	}
	return got
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// keyUse finds message ids in Go and templ code: t(ctx, "x.y"),
// tn(ctx, "x.y", n), p.T("x.y"), p.N("x.y", n) and i18n.M("x.y").
var keyUse = regexp.MustCompile(`\b(?:t|tn|T|N|M)\((?:ctx, )?"([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)"`)

// Every id the code asks for must be in the catalogue, or the page would
// show the id. Ids built at run time go through functions whose tests list
// their values.
func TestCodeUsesOnlyCatalogueKeys(t *testing.T) {
	c := Messages()
	known := c.Keys(EN)
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "library", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			if filepath.Base(filepath.Dir(p)) == "internal" && d.Name() == "i18n" {
				return filepath.SkipDir // its own tests name keys that must not exist
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".templ") || strings.HasSuffix(p, "_templ.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range keyUse.FindAllStringSubmatch(string(src), -1) {
			found++
			if !slices.Contains(known, m[1]) {
				t.Errorf("%s asks for message %q, which the catalogue lacks", p, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 20 {
		t.Fatalf("found only %d catalogue lookups in the code; the pattern is stale", found)
	}
}

func TestFormats(t *testing.T) {
	en, ko := Messages().Printer(EN), Messages().Printer(KO)
	for _, tc := range []struct {
		p          *Printer
		date, want string
	}{
		{en, "2026-03-04", "Mar 4, 2026"},
		{ko, "2026-03-04", "2026년 3월 4일"},
		{en, "2019-01", "Jan 2019"},
		{ko, "2019-01", "2019년 1월"},
		{ko, "sometime", "sometime"},
	} {
		if got := tc.p.Date(tc.date); got != tc.want {
			t.Errorf("%s Date(%q) = %q, want %q", tc.p.Lang(), tc.date, got, tc.want)
		}
	}
	if got := ko.Num(12345); got != "12,345" {
		t.Errorf("ko Num = %q", got)
	}
	if got := en.Num(7); got != "7" {
		t.Errorf("en Num = %q", got)
	}
}

func TestPluralsAndPlaceholders(t *testing.T) {
	en, ko := Messages().Printer(EN), Messages().Printer(KO)
	for _, tc := range []struct {
		p    *Printer
		n    int
		want string
	}{
		{en, 1, "1 case"},
		{en, 4, "4 cases"},
		{en, 1234, "1,234 cases"},
		{ko, 1, "사례 1건"},
		{ko, 4, "사례 4건"},
	} {
		if got := tc.p.N("count.cases", tc.n); got != tc.want {
			t.Errorf("%s N(count.cases, %d) = %q, want %q", tc.p.Lang(), tc.n, got, tc.want)
		}
	}
	if got := ko.T("pager.range", "from", 1, "to", 4, "total", 4); got != "4건 중 1~4번째" {
		t.Errorf("ko pager.range = %q", got)
	}
	if got := ko.T("search.did_you_mean_end"); got != "" {
		t.Errorf("an empty Korean piece must stay empty, not fall back to English: %q", got)
	}
	if got := en.T("no.such.key"); got != "no.such.key" {
		t.Errorf("a missing key should come back as itself, got %q", got)
	}
}

func TestBracesKeepNonPlaceholders(t *testing.T) {
	tpl := bracesTemplate(splitPlaceholders("taint {nvidia.com/gpu: present} on {node} {}"))
	got, _ := tpl.Execute(map[string]string{"node": "gpu-1"})
	if want := "taint {nvidia.com/gpu: present} on gpu-1 {}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPick(t *testing.T) {
	en, ko := Messages().Printer(EN), Messages().Printer(KO)
	if s, fb := ko.Pick("Pending pod", "Pending 파드"); s != "Pending 파드" || fb {
		t.Errorf("ko Pick = %q %v", s, fb)
	}
	if s, fb := ko.Pick("Pending pod", " "); s != "Pending pod" || !fb {
		t.Errorf("ko Pick without Korean = %q %v, want the English with the fallback flag", s, fb)
	}
	if s, fb := en.Pick("Pending pod", "Pending 파드"); s != "Pending pod" || fb {
		t.Errorf("en Pick = %q %v", s, fb)
	}
}

// The Korean catalogue follows the library's Korean style: the UI is the
// Korean text people read most.
func TestKoreanCatalogueStyle(t *testing.T) {
	paths, err := filepath.Glob("locales/*ko.toml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Korean catalogue files: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range library.KoreanStyle(p, src) {
			t.Error(pr)
		}
	}
}
