package probe

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"casebook/internal/i18n"
)

var hangul = regexp.MustCompile(`\p{Hangul}`)

// Every note a probe writes, and every explanation it puts beside what the
// cluster printed, must come from the catalogue, so a Korean page shows it
// in Korean: a note without its message would show English on that page.
func TestNotesInKorean(t *testing.T) {
	cat := loadCatalog(t)
	ko := i18n.Messages().Printer(i18n.KO)
	files, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".json") {
			continue
		}
		s := loadFile(t, f.Name())
		for _, name := range ProbeNames() {
			r := Answer(s, name, cat)
			if r.Note != "" {
				if r.NoteMsg.IsZero() {
					t.Errorf("%s %s: note %q has no catalogue message", f.Name(), name, r.Note)
					continue
				}
				seen++
				checkKorean(t, f.Name()+" "+name+" note", r.NoteIn(ko))
			}
			for _, e := range r.Evidence {
				if !e.MessageMsg.IsZero() || !e.ValueMsg.IsZero() {
					seen++
					if strings.Contains(e.In(ko), "{") && !strings.Contains(e.String(), "{") {
						t.Errorf("%s %s: placeholder left in %q", f.Name(), name, e.In(ko))
					}
				}
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d translated notes and explanations over the fixtures; the test reads too little", seen)
	}
}

func checkKorean(t *testing.T, where, text string) {
	t.Helper()
	if !hangul.MatchString(text) {
		t.Errorf("%s: %q is not Korean", where, text)
	}
	if regexp.MustCompile(`\{[a-z_]+\}`).MatchString(text) {
		t.Errorf("%s: placeholder left in %q", where, text)
	}
}

// A forbidden read names the permission in both languages.
func TestForbiddenNoteInKorean(t *testing.T) {
	r := Answer(loadFile(t, "forbidden.json"), "gpu-allocatable", nil)
	got := r.NoteIn(i18n.Messages().Printer(i18n.KO))
	if !strings.Contains(got, "필요한 권한: list nodes") {
		t.Fatalf("Korean note %q does not name the permission", got)
	}
}
