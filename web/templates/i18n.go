package templates

import (
	"context"
	"sync"
	"time"

	"github.com/a-h/templ"

	"casebook/internal/i18n"
)

// t is the catalogue message id in the request's language (see
// internal/i18n); templates hold no user-visible text of their own.
func t(ctx context.Context, id string, args ...any) string {
	return i18n.From(ctx).T(id, args...)
}

// tn is t for a message with plural forms, chosen by n.
func tn(ctx context.Context, id string, n int, args ...any) string {
	return i18n.From(ctx).N(id, n, args...)
}

// clock formats a moment for the request's language.
func clock(ctx context.Context, at time.Time) string { return i18n.From(ctx).Time(at) }

// num formats a number for the request's language.
func num(ctx context.Context, n int) string { return i18n.From(ctx).Num(n) }

// lang is the request's language, for <html lang> and the switch.
func lang(ctx context.Context) i18n.Lang { return i18n.From(ctx).Lang() }

// LangLink is a language the page is also available in.
type LangLink struct {
	Lang i18n.Lang
	Href string // relative, for the switch
	Abs  string // absolute, for hreflang
}

// Alternates are the page's URLs in each language, set by the web layer's
// language middleware (hreflang links and the switch).
type Alternates struct {
	Links   []LangLink
	Default string // the absolute URL without a language: x-default
}

type altKey struct{}

// WithAlternates returns ctx carrying the page's language alternates,
// computed by of the first time a page asks for them: JSON answers, feeds
// and redirects never do, and building the links (the query copied and
// encoded once per language) was 5 % of a cached /api/search request's CPU.
func WithAlternates(ctx context.Context, of func() Alternates) context.Context {
	return context.WithValue(ctx, altKey{}, sync.OnceValue(of))
}

func alternates(ctx context.Context) Alternates {
	if of, ok := ctx.Value(altKey{}).(func() Alternates); ok {
		return of()
	}
	return Alternates{}
}

// switchLink is the link to the page in the other language.
func switchLink(ctx context.Context) (LangLink, bool) {
	other := lang(ctx).Other()
	for _, l := range alternates(ctx).Links {
		if l.Lang == other {
			return l, true
		}
	}
	return LangLink{}, false
}

// enLang marks an element whose text is English on a Korean page (a
// fallback), so screen readers and translators treat it as English.
func enLang(english bool) templ.Attributes {
	if english {
		return templ.Attributes{"lang": "en"}
	}
	return nil
}
