package web

import (
	"testing"

	"casebook/internal/library"
)

// A Korean page shows the Korean description, and falls back to the
// English one (marked as English) only when a term has none.
func TestTermDescriptionFallsBackToEnglish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		korean        bool
		en, ko        string
		want          string
		wantEnglishUI bool
	}{
		{"korean page, korean text", true, "Runs pods.", "파드를 실행한다.", "파드를 실행한다.", false},
		{"korean page, english only", true, "Runs pods.", "", "Runs pods.", true},
		{"english page", false, "Runs pods.", "파드를 실행한다.", "Runs pods.", false},
		{"no description", true, "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, english := termDescription(tt.korean, &library.Term{Description: tt.en, DescriptionKo: tt.ko})
			if got != tt.want || english != tt.wantEnglishUI {
				t.Errorf("termDescription = %q, %v; want %q, %v", got, english, tt.want, tt.wantEnglishUI)
			}
		})
	}
}
