package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// A term's description follows the page's language, and the API carries
// both so a client can pick.
func TestTermDescriptionLanguages(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	var tax map[string][]struct {
		ID            string `json:"id"`
		Description   string `json:"description"`
		DescriptionKo string `json:"description_ko"`
	}
	getJSON(t, h, "/api/taxonomy", http.StatusOK, &tax)
	var en, ko string
	for _, term := range tax["component"] {
		if term.Description != "" && term.DescriptionKo == "" {
			t.Errorf("/api/taxonomy: component %s has description but no description_ko", term.ID)
		}
		if term.ID == "kubelet" {
			en, ko = term.Description, term.DescriptionKo
		}
	}
	if en == "" || !regexp.MustCompile(`\p{Hangul}`).MatchString(ko) {
		t.Fatalf("/api/taxonomy kubelet: description %q, description_ko %q", en, ko)
	}
	for _, tc := range []struct{ target, want string }{
		{"/terms/component/kubelet?lang=en", en},
		{"/terms/component/kubelet?lang=ko", ko},
	} {
		doc := page(t, h, tc.target, http.StatusOK)
		if got := strings.TrimSpace(one(t, doc, "term-description").Text()); got != tc.want {
			t.Errorf("%s: description %q, want %q", tc.target, got, tc.want)
		}
		if n := byTestID(doc, "english-only").Length(); n != 0 {
			t.Errorf("%s: %d english-only marks, want none", tc.target, n)
		}
	}
}
