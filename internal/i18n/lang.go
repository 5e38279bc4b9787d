// Package i18n holds Casebook's two languages: which one a request gets
// (Negotiate), and the message catalogue every user-visible string of the
// portal comes from (Catalog, Printer), with plural rules, {name}
// placeholders and dates and numbers per language.
package i18n

import (
	"strings"

	"golang.org/x/text/language"
)

// Lang is a language the portal speaks.
type Lang string

// The languages, as their BCP 47 tags. English is the language content is
// classified in; Korean is the first users' language. Both are complete.
const (
	EN Lang = "en"
	KO Lang = "ko"
)

// Langs lists every language, in the order the switch shows them.
var Langs = []Lang{EN, KO}

// Name is the language's name in itself, for the switch.
func (l Lang) Name() string {
	if l == KO {
		return "한국어"
	}
	return "English"
}

// Korean reports whether l is Korean; content carries a Korean twin only.
func (l Lang) Korean() bool { return l == KO }

// Other is the language the switch offers.
func (l Lang) Other() Lang {
	if l == KO {
		return EN
	}
	return KO
}

// InvalidLangError is a lang value the portal does not speak.
type InvalidLangError struct{ Value string }

func (e *InvalidLangError) Error() string { return e.Message().English() }

// Message is the refusal as a catalogue message (Localized).
func (e *InvalidLangError) Message() Msg { return M("select.lang", "value", Quote(e.Value)) }

// ClientError marks the error as the client's fault (a 400).
func (e *InvalidLangError) ClientError() bool { return true }

// Parse reads a language from a parameter or cookie value. It accepts the
// region forms people and browsers write ("ko-KR", "en_US") and any case.
func Parse(s string) (Lang, error) {
	s = strings.TrimSpace(s)
	t, err := language.Parse(strings.ReplaceAll(s, "_", "-"))
	if err != nil {
		return "", &InvalidLangError{s}
	}
	base, _ := t.Base()
	switch base.String() {
	case "en":
		return EN, nil
	case "ko":
		return KO, nil
	}
	return "", &InvalidLangError{s}
}

// Source says where the negotiated language came from.
type Source string

// Sources in the order Negotiate consults them.
const (
	FromQuery   Source = "query"
	FromCookie  Source = "cookie"
	FromHeader  Source = "accept-language"
	FromDefault Source = "default"
)

var matcher = language.NewMatcher([]language.Tag{language.English, language.Korean})

// Negotiate picks the language of a request: the lang parameter, else the
// cookie that remembers an earlier choice, else the browser's
// Accept-Language, else def. Only an invalid lang parameter is an error: a
// stale cookie or a header naming languages the portal does not speak falls
// through to the next source.
func Negotiate(query, cookie, acceptLanguage string, def Lang) (Lang, Source, error) {
	if query != "" {
		// The parameter is a contract (lang=en or lang=ko, as links carry
		// it); only the cookie and the header are read leniently.
		switch Lang(query) {
		case EN, KO:
			return Lang(query), FromQuery, nil
		}
		return def, FromDefault, &InvalidLangError{query}
	}
	if cookie != "" {
		if l, err := Parse(cookie); err == nil {
			return l, FromCookie, nil
		}
	}
	if acceptLanguage != "" {
		if tags, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil && len(tags) > 0 {
			if _, i, conf := matcher.Match(tags...); conf != language.No {
				return Langs[i], FromHeader, nil
			}
		}
	}
	return def, FromDefault, nil
}
