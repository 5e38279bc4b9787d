package i18n

import (
	"errors"
	"testing"
)

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		query, cookie, header string
		def                   Lang
		want                  Lang
		src                   Source
		wantErr               bool
	}{
		{"nothing: the default", "", "", "", EN, EN, FromDefault, false},
		{"nothing, Korean server", "", "", "", KO, KO, FromDefault, false},
		{"query wins over all", "ko", "en", "en-US", EN, KO, FromQuery, false},
		{"query with region is not the contract", "ko-KR", "", "", EN, EN, FromDefault, true},
		{"cookie with region", "", "ko-KR", "", EN, KO, FromCookie, false},
		{"unknown query is an error", "fr", "ko", "", EN, EN, FromDefault, true},
		{"garbage query is an error", "<script>", "", "", EN, EN, FromDefault, true},
		{"cookie wins over header", "", "ko", "en-US,en;q=0.9", EN, KO, FromCookie, false},
		{"stale cookie falls through", "", "de", "ko-KR,ko;q=0.9", EN, KO, FromHeader, false},
		{"Korean browser", "", "", "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", EN, KO, FromHeader, false},
		{"English browser on a Korean server", "", "", "en-GB,en;q=0.9", KO, EN, FromHeader, false},
		{"Korean second after a language we lack", "", "", "ja-JP,ko;q=0.8", EN, KO, FromHeader, false},
		{"only languages we lack: the default", "", "", "fr-FR,de;q=0.5", KO, KO, FromDefault, false},
		{"malformed header: the default", "", "", ";;;q=x", KO, KO, FromDefault, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, src, err := Negotiate(tc.query, tc.cookie, tc.header, tc.def)
			if tc.wantErr {
				var ie *InvalidLangError
				if !errors.As(err, &ie) {
					t.Fatalf("err = %v, want *InvalidLangError", err)
				}
				return
			}
			if err != nil || got != tc.want || src != tc.src {
				t.Errorf("Negotiate = %q, %q, %v; want %q, %q", got, src, err, tc.want, tc.src)
			}
		})
	}
}
