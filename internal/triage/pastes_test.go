package triage

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// paste is one labelled text from testdata/pastes. Its header lines start
// with "#!": "#! expect: <route>" (required), "#! evidence: <text>" (a
// substring the best route's evidence must show), "#! section: <anchor>"
// (the playbook section expected when a route has several), "#! absent:
// <route>, ..." (routes that must not be listed at all: false cards) and
// "#! note: ..." (why the paste is in the set). The header is removed
// before classifying.
type paste struct {
	name     string
	expect   string
	evidence string
	section  string
	absent   []string
	text     string
}

func readPastes(t *testing.T) []paste {
	t.Helper()
	files, err := filepath.Glob("testdata/pastes/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []paste
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := paste{name: filepath.Base(f)}
		var body []string
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "#!") {
				body = append(body, line)
				continue
			}
			key, val, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#!")), ":")
			switch strings.TrimSpace(key) {
			case "expect":
				p.expect = strings.TrimSpace(val)
			case "evidence":
				p.evidence = strings.TrimSpace(val)
			case "section":
				p.section = strings.TrimSpace(val)
			case "absent":
				for _, r := range strings.Split(val, ",") {
					p.absent = append(p.absent, strings.TrimSpace(r))
				}
			}
		}
		if p.expect == "" {
			t.Fatalf("%s: no '#! expect: <route>' header", f)
		}
		p.text = strings.Join(body, "\n")
		out = append(out, p)
	}
	return out
}

// TestPastes runs the hand-written pastes as unit cases: each must rank its
// route first, with its section and evidence when the paste names them. They
// pin what the classifier already gets right; the accuracy measure is the
// real corpus (TestCorpusAccuracy).
func TestPastes(t *testing.T) {
	c := loadReal(t)
	pastes := readPastes(t)
	perRoute := map[string]int{}
	for _, p := range pastes {
		perRoute[p.expect]++
		t.Run(p.name, func(t *testing.T) {
			res := c.Classify(p.text)
			if len(res.Routes) == 0 {
				t.Fatalf("want %s, got nothing", p.expect)
			}
			top := res.Routes[0]
			if top.Route != p.expect {
				var got []string
				for _, r := range res.Routes {
					got = append(got, r.Route+" "+ftoa(r.Confidence))
				}
				t.Fatalf("want %s, got %s", p.expect, strings.Join(got, ", "))
			}
			if p.section != "" && top.Section != p.section {
				t.Errorf("section %s, want %s", top.Section, p.section)
			}
			if p.evidence != "" && !evidenceShows(top, p.evidence) {
				t.Errorf("%s evidence does not show %q: %+v", top.Route, p.evidence, top.Evidence)
			}
			for _, r := range res.Routes {
				if slices.Contains(p.absent, r.Route) {
					t.Errorf("false card %s (%.2f) from %+v", r.Route, r.Confidence, r.Evidence)
				}
			}
		})
	}
	for _, r := range Routes {
		if perRoute[r] < 2 {
			t.Errorf("route %s has %d pastes; want at least 2", r, perRoute[r])
		}
	}
}

func evidenceShows(r RouteMatch, want string) bool {
	for _, e := range r.Evidence {
		if strings.Contains(e.Text, want) {
			return true
		}
	}
	return false
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
