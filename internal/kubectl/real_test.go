package kubectl

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"casebook/internal/snapshot"
)

// TestOutputIsKubectls compares the rendering of each recorded drill with
// what kubectl itself printed for the same objects on the staged cluster
// (testdata/real/ID, written by scripts/drills-record.sh right after the
// recording). Every line rendered must be a line kubectl printed, or the
// start of one (a column the recording does not keep is left off the
// end), in the same order. Ages and repeat counts are masked: kubectl ran
// a few seconds after the recording.
func TestOutputIsKubectls(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/real/*")
	if len(dirs) == 0 {
		t.Fatal("no recordings of kubectl output under testdata/real")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, "snapshot.json"))
			if err != nil {
				t.Fatal(err)
			}
			snaps, err := snapshot.Decode(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			s := &snaps[0]
			cmds, _ := filepath.Glob(filepath.Join(dir, "*.cmd"))
			for _, cf := range cmds {
				cmd, _ := os.ReadFile(cf)
				real, err := os.ReadFile(strings.TrimSuffix(cf, ".cmd") + ".txt")
				if err != nil {
					t.Fatal(err)
				}
				line := strings.TrimSpace(string(cmd))
				_, out, err := Exec(s, line)
				if err != nil {
					// A command the recording cannot answer is refused, not
					// rendered wrong.
					continue
				}
				if bad := notInOrder(normalize(out), normalize(string(real))); bad != "" {
					t.Errorf("kubectl %s: rendered line %q is not in kubectl's output (in order):\n--- rendered\n%s--- kubectl\n%s", line, bad, out, real)
				}
			}
		})
	}
}

var (
	ageToken = regexp.MustCompile(`(^|\s)(\d+[smhdy](\d+[smh])?|<unknown>|<invalid>)(\s|$)`)
	repeat   = regexp.MustCompile(`\(x\d+ over [^)]*\)`)
	restarts = regexp.MustCompile(`(\d+) \((\d+[smhdy])+ ago\)`)
	spaces   = regexp.MustCompile(`\s+`)
)

func normalize(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = repeat.ReplaceAllString(l, "")
		for ageToken.MatchString(l) {
			l = ageToken.ReplaceAllString(l, "${1}AGE${4}")
		}
		l = restarts.ReplaceAllString(l, "$1 (AGE ago)")
		l = strings.TrimSpace(spaces.ReplaceAllString(l, " "))
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// notInOrder returns the first rendered line that is not, in order, a
// kubectl line or the start of one.
func notInOrder(rendered, real []string) string {
	j := 0
	for _, r := range rendered {
		for j < len(real) && !strings.HasPrefix(real[j], r) {
			j++
		}
		if j == len(real) {
			return r
		}
		j++
	}
	return ""
}
