package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUpdateReportKeepsOtherSections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.md")
	other := "# Performance\n\nIntro.\n\n## Load test\n\nTheirs.\n\n## Search\n\nAlso theirs.\n"
	if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := &Report{Started: time.Now(), Sizes: []*SizeRun{{N: 1000}, {N: 10000}}}
	for range 2 { // the second run replaces the first one's part
		if err := UpdateReport(path, rep); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if strings.Count(s, beginMarker) != 1 || strings.Count(s, endMarker) != 1 {
		t.Fatalf("want one generated part, got:\n%s", s)
	}
	for _, keep := range []string{"Intro.", "## Load test\n\nTheirs.", "## Search\n\nAlso theirs."} {
		if !strings.Contains(s, keep) {
			t.Errorf("lost %q", keep)
		}
	}
	if b, l := strings.Index(s, beginMarker), strings.Index(s, "## Load test"); b > l || b < strings.Index(s, "Intro.") {
		t.Errorf("the generated part is not between the introduction and the first section:\n%s", s)
	}
	if !strings.Contains(s, "### 10,000 incidents") || !strings.Contains(s, "### Growth") {
		t.Errorf("missing size or growth tables:\n%s", s)
	}
}

func TestSummarise(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	d := Summarise(ds)
	if d.N != 100 || d.P50 != 50*time.Millisecond || d.P99 != 99*time.Millisecond || d.Max != 100*time.Millisecond {
		t.Errorf("Summarise = %+v", d)
	}
	if (Summarise(nil) != Dist{}) {
		t.Error("Summarise(nil) is not zero")
	}
}

func TestExponent(t *testing.T) {
	for _, tc := range []struct {
		y1, y2 float64
		want   string
	}{{1, 10, "1.00"}, {1, 1, "0.00"}, {1, 100, "2.00"}, {0, 1, "–"}} {
		if got := exponent(1000, tc.y1, 10000, tc.y2); got != tc.want {
			t.Errorf("exponent(%v→%v) = %s, want %s", tc.y1, tc.y2, got, tc.want)
		}
	}
}
