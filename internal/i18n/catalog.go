package i18n

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// The catalogue is TOML files per language (go-i18n's format: a table
// groups keys, "one"/"other" hold plural forms): locales/<lang>.toml for
// the pages, and locales/<part>.<lang>.toml for text other packages render
// later (probe notes, errors), kept apart so each file stays readable.
// Messages use {name} placeholders, the same syntax as the gap checks'
// messages, so the text reads naturally to a translator and carries no
// template code.
//
//go:embed locales/*.toml
var localeFS embed.FS

// Catalog is the parsed message catalogue of every language.
type Catalog struct {
	bundle   *goi18n.Bundle
	msgs     map[Lang][]*goi18n.Message
	printers map[Lang]*Printer
	// empty holds the ids a language leaves empty on purpose (the end of
	// a sentence split around a link); go-i18n would fall back to English.
	empty map[Lang]map[string]bool
}

// Load parses the catalogue files of fsys: locales/<lang>.toml and
// locales/<part>.<lang>.toml. An id defined twice in one language is an
// error naming both files.
func Load(fsys fs.FS) (*Catalog, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	c := &Catalog{bundle: b, msgs: map[Lang][]*goi18n.Message{}, printers: map[Lang]*Printer{}, empty: map[Lang]map[string]bool{}}
	paths, err := fs.Glob(fsys, "locales/*.toml")
	if err != nil {
		return nil, fmt.Errorf("i18n: %w", err)
	}
	for _, l := range Langs {
		c.empty[l] = map[string]bool{}
		from := map[string]string{}
		found := false
		for _, p := range paths {
			base := strings.TrimSuffix(path.Base(p), ".toml")
			if base != string(l) && !strings.HasSuffix(base, "."+string(l)) {
				continue
			}
			found = true
			src, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil, fmt.Errorf("i18n: %w", err)
			}
			mf, err := b.ParseMessageFileBytes(src, p)
			if err != nil {
				return nil, fmt.Errorf("i18n: %s: %w", p, err)
			}
			for _, m := range mf.Messages {
				if prev, ok := from[m.ID]; ok {
					return nil, fmt.Errorf("i18n: %s: message %q is also in %s", p, m.ID, prev)
				}
				from[m.ID] = p
				c.msgs[l] = append(c.msgs[l], m)
				if m.Zero == "" && m.One == "" && m.Two == "" && m.Few == "" && m.Many == "" && m.Other == "" {
					c.empty[l][m.ID] = true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("i18n: no catalogue file for %s (locales/%s.toml)", l, l)
		}
	}
	for _, l := range Langs {
		c.printers[l] = &Printer{lang: l, cat: c, loc: goi18n.NewLocalizer(b, string(l)), num: message.NewPrinter(language.Make(string(l)))}
	}
	return c, nil
}

var loadEmbedded = sync.OnceValues(func() (*Catalog, error) { return Load(localeFS) })

// Messages returns the catalogue compiled into the binary. The files are
// checked by tests, so failing to parse them is a build defect: it panics.
func Messages() *Catalog {
	c, err := loadEmbedded()
	if err != nil {
		panic(err)
	}
	return c
}

// Printer returns the printer of a language (English for an unknown one).
func (c *Catalog) Printer(l Lang) *Printer {
	if p, ok := c.printers[l]; ok {
		return p
	}
	return c.printers[EN]
}

// Keys lists the message ids of a language, sorted.
func (c *Catalog) Keys(l Lang) []string {
	var ids []string
	for _, m := range c.msgs[l] {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids
}

// Message is one entry of a language's file, for the completeness tests.
type Message struct {
	ID    string
	Forms map[string]string // plural form ("one", "other") -> text
}

// Message returns a language's entry for id.
func (c *Catalog) Message(l Lang, id string) (Message, bool) {
	for _, m := range c.msgs[l] {
		if m.ID != id {
			continue
		}
		out := Message{ID: id, Forms: map[string]string{}}
		for form, s := range map[string]string{"zero": m.Zero, "one": m.One, "two": m.Two, "few": m.Few, "many": m.Many, "other": m.Other} {
			if s != "" {
				out.Forms[form] = s
			}
		}
		return out, true
	}
	return Message{}, false
}

// Placeholders lists the {name} placeholders of a text, sorted, once each.
func Placeholders(s string) []string {
	var out []string
	for _, seg := range splitPlaceholders(s) {
		if seg.name != "" && !slices.Contains(out, seg.name) {
			out = append(out, seg.name)
		}
	}
	sort.Strings(out)
	return out
}

// Printer formats messages, numbers and dates in one language. It is safe
// for concurrent use.
type Printer struct {
	lang Lang
	cat  *Catalog
	loc  *goi18n.Localizer
	num  *message.Printer
	// plain keeps the messages asked for without arguments (labels,
	// headings): go-i18n executes a message's template on every call,
	// and a search page asks for a few hundred of them.
	plain sync.Map // id -> string
}

// Lang is the printer's language.
func (p *Printer) Lang() Lang { return p.lang }

// T returns the message id with its placeholders filled from args, given as
// name, value pairs: T("pager.range", "from", 1, "to", 20). Numbers are
// formatted for the language. A missing id comes back as the id itself, so
// the gap is visible on the page; the catalogue tests keep that from
// shipping.
func (p *Printer) T(id string, args ...any) string {
	if len(args) == 0 {
		if s, ok := p.plain.Load(id); ok {
			return s.(string)
		}
		s := p.localize(id, nil, nil)
		if s != id { // only catalogue messages, so the map stays bounded
			p.plain.Store(id, s)
		}
		return s
	}
	return p.localize(id, nil, args)
}

// N is T for a message with plural forms, chosen by count, which also
// fills {count}: N("count.cases", 4) is "4 cases" or "사례 4건".
func (p *Printer) N(id string, count int, args ...any) string {
	return p.localize(id, count, append([]any{"count", count}, args...))
}

func (p *Printer) localize(id string, count any, args []any) string {
	if p.cat.empty[p.lang][id] {
		return ""
	}
	data := make(map[string]string, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		k, _ := args[i].(string)
		data[k] = p.format(args[i+1])
	}
	s, err := p.loc.Localize(&goi18n.LocalizeConfig{MessageID: id, PluralCount: count, TemplateData: data, TemplateParser: braces{}})
	if err != nil && s == "" {
		return id
	}
	return s
}

func (p *Printer) format(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return p.Num(x)
	case int64:
		return p.Num(int(x))
	case Msg:
		return p.Msg(x)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// Num formats an integer with the language's digit grouping.
func (p *Printer) Num(n int) string {
	if n > -1000 && n < 1000 {
		return strconv.Itoa(n)
	}
	return p.num.Sprint(number.Decimal(n))
}

// Date formats a library date, "2026-03-04" or "2026-03", for the
// language: "Mar 4, 2026" or "2026년 3월 4일". Anything else is returned
// as written, so an odd date is never lost.
func (p *Printer) Date(s string) string {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Format(p.T("format.date"))
	}
	if t, err := time.Parse("2006-01", s); err == nil {
		return t.Format(p.T("format.month"))
	}
	return s
}

// Time formats an instant (UTC) with the date and the time of day.
func (p *Printer) Time(t time.Time) string {
	return t.UTC().Format(p.T("format.time"))
}

// Pick returns the text for the printer's language: ko when the page is
// Korean and the Korean text exists, else en. Fallback reports that a
// Korean page got English, so the page can say so.
func (p *Printer) Pick(en, ko string) (text string, fallback bool) {
	if p.lang != KO {
		return en, false
	}
	if strings.TrimSpace(ko) == "" {
		return en, en != ""
	}
	return ko, false
}

// PickText is Pick without the fallback flag, for short labels where a
// note would be noise (a term with no Korean label shows its English one).
func (p *Printer) PickText(en, ko string) string {
	s, _ := p.Pick(en, ko)
	return s
}
