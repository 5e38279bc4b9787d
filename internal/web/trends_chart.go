package web

import (
	"strconv"
	"unicode/utf8"

	"casebook/internal/i18n"
	"casebook/internal/trends"
	"casebook/web/templates"
)

// The charts are drawn in a view box chartWidth wide, which the page
// scales to its column: on a 390 px phone a unit is about a pixel, so the
// 13- and 14-unit text stays readable; wider screens draw it smaller
// (app.css).
const (
	chartWidth = 360
	colours    = 10 // tc0…tc9 in app.css, each at least 4.5:1 against white and under white text
)

func colour(i int) string { return "tc" + strconv.Itoa(i%colours) }

// trendCharts turns the report into the page's four charts.
func trendCharts(p *i18n.Printer, rep trends.Report) []templates.Chart {
	return []templates.Chart{
		yearChart(p, rep.CausesByYear, "causes-by-year", p.T("trends.causes_title"), p.T("trends.causes_intro")),
		yearChart(p, rep.DomainsByYear, "domains-by-year", p.T("trends.domains_title"), p.T("trends.domains_intro")),
		componentChart(p, rep.Components),
		factorChart(p, rep.Factors),
	}
}

func libraryHref(c trends.Count) string {
	if c.Query == "" {
		return "/"
	}
	return "/?" + c.Query
}

func label(p *i18n.Printer, t trends.Term) string { return p.PickText(t.Label, t.LabelKo) }

// shorten cuts a label to what fits in width units at 14 units a line
// (Latin letters about half as wide as Hangul), so it cannot run into the
// columns beside it; the whole label is then the text's title.
func shorten(s string, width int) (string, string) {
	wide := func(r rune) int {
		if r < utf8.RuneSelf {
			return 8
		}
		return 14
	}
	total := 0
	for _, r := range s {
		total += wide(r)
	}
	if total <= width {
		return s, ""
	}
	used := 14 // the ellipsis
	for i, r := range s {
		if used += wide(r); used > width {
			return s[:i] + "…", s
		}
	}
	return s, ""
}

// scale is the length of a bar of n when max fills width.
func scale(n, max, width int) int {
	if max == 0 {
		return 0
	}
	return max1(n * width / max)
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// yearChart stacks each year's incidents by term: one row per year, one
// coloured segment per term, the number of the year's incidents at the
// row's end (segments may add up to more: see trends.YearChart).
func yearChart(p *i18n.Printer, ch trends.YearChart, id, title, intro string) templates.Chart {
	const rowH, barH, left, barW = 24, 18, 40, 290
	c := templates.Chart{ID: id, Title: title, Intro: intro, Width: chartWidth}
	for i, s := range ch.Series {
		c.Legend = append(c.Legend, templates.LegendEntry{Label: label(p, s), Colour: colour(i)})
	}
	most := 0
	for _, y := range ch.Years {
		sum := 0
		for _, s := range y.Segments {
			sum += s.Count
		}
		most = max(most, sum)
	}
	c.Table.Head = append(c.Table.Head, p.T("facet.year"))
	for _, s := range ch.Series {
		c.Table.Head = append(c.Table.Head, label(p, s))
	}
	c.Table.Head = append(c.Table.Head, p.T("trends.incidents"))
	for row, y := range ch.Years {
		top := row * rowH
		year := strconv.Itoa(y.Year)
		c.Labels = append(c.Labels, templates.ChartLabel{X: left - 6, Y: top + 14, Text: year, Anchor: "end"})
		x := left
		tr := templates.ChartRow{Head: year}
		for i, s := range y.Segments {
			tr.Cells = append(tr.Cells, cell(p, s))
			if s.Count == 0 {
				continue
			}
			w := scale(s.Count, most, barW)
			what := p.T("trends.segment", "year", year, "term", label(p, ch.Series[i]), "count", p.N("count.incidents", s.Count))
			c.Marks = append(c.Marks, templates.Mark{X: x, Y: top + 2, W: w, H: barH, Colour: colour(i) + " seg", Href: libraryHref(s), Title: what, Count: s.Count})
			if w >= 18 {
				c.Labels = append(c.Labels, templates.ChartLabel{X: x + w/2, Y: top + 15, Text: p.Num(s.Count), Anchor: "middle", Class: "on-bar"})
			}
			x += w
		}
		if y.Incidents.Count > 0 {
			c.Labels = append(c.Labels, templates.ChartLabel{X: x + 5, Y: top + 15, Text: p.Num(y.Incidents.Count), Anchor: "start", Class: "small"})
		}
		tr.Cells = append(tr.Cells, cell(p, y.Incidents))
		c.Table.Rows = append(c.Table.Rows, tr)
	}
	c.Height = len(ch.Years)*rowH + 4
	return c
}

func cell(p *i18n.Printer, n trends.Count) templates.Link {
	if n.Count == 0 {
		return templates.Link{Label: "–"}
	}
	return templates.Link{Label: p.Num(n.Count), Href: libraryHref(n), Count: n.Count}
}

// componentChart draws the components with the most incidents as bars,
// and beside each its place in each of the last three years, with an
// arrow where it rose or fell.
func componentChart(p *i18n.Printer, ch trends.ComponentChart) templates.Chart {
	const rowH, head, barW, colW = 44, 22, 140, 44
	c := templates.Chart{ID: "components", Title: p.T("trends.components_title"), Intro: p.T("trends.components_intro"), Width: chartWidth}
	most := 0
	for _, r := range ch.Rows {
		most = max(most, r.Total.Count)
	}
	colX := func(i int) int { return chartWidth - (len(ch.Years)-i)*colW }
	c.Table.Head = []string{p.T("facet.component"), p.T("trends.incidents")}
	for i, y := range ch.Years {
		year := strconv.Itoa(y)
		c.Labels = append(c.Labels, templates.ChartLabel{X: colX(i) + colW/2, Y: 15, Text: year, Anchor: "middle", Class: "head"})
		c.Table.Head = append(c.Table.Head, p.T("trends.place_in", "year", year))
	}
	for row, r := range ch.Rows {
		top := head + row*rowH
		name := p.PickText(r.Label, r.LabelKo)
		text, full := shorten(name, colX(0)-8)
		c.Labels = append(c.Labels, templates.ChartLabel{X: 0, Y: top + 14, Text: text, Anchor: "start", Title: full})
		w := scale(r.Total.Count, most, barW)
		c.Marks = append(c.Marks, templates.Mark{X: 0, Y: top + 20, W: w, H: 16, Colour: "tc0",
			Href: libraryHref(r.Total), Title: p.T("trends.component_bar", "term", name, "count", p.N("count.incidents", r.Total.Count)), Count: r.Total.Count})
		c.Labels = append(c.Labels, templates.ChartLabel{X: w + 5, Y: top + 33, Text: p.Num(r.Total.Count), Anchor: "start", Class: "small"})
		tr := templates.ChartRow{Head: name, Cells: []templates.Link{cell(p, r.Total)}}
		for i, yp := range r.PerYear {
			year := strconv.Itoa(ch.Years[i])
			if yp.Incidents.Count == 0 {
				c.Labels = append(c.Labels, templates.ChartLabel{X: colX(i) + colW/2, Y: top + 30, Text: "–", Anchor: "middle", Class: "small"})
				tr.Cells = append(tr.Cells, templates.Link{Label: "–"})
				continue
			}
			place := p.T("trends.place_short", "place", yp.Place) + movement(r.PerYear, i)
			what := p.T("trends.place", "term", name, "year", year, "place", yp.Place, "count", p.N("count.incidents", yp.Incidents.Count))
			c.Marks = append(c.Marks, templates.Mark{X: colX(i) + 3, Y: top + 12, W: colW - 6, H: 26, Colour: "place",
				Href: libraryHref(yp.Incidents), Title: what, Count: yp.Incidents.Count})
			c.Labels = append(c.Labels, templates.ChartLabel{X: colX(i) + colW/2, Y: top + 30, Text: place, Anchor: "middle", Class: "small"})
			tr.Cells = append(tr.Cells, templates.Link{Label: p.T("trends.place_cell", "place", yp.Place, "count", yp.Incidents.Count), Href: libraryHref(yp.Incidents), Count: yp.Incidents.Count})
		}
		c.Table.Rows = append(c.Table.Rows, tr)
	}
	c.Height = head + len(ch.Rows)*rowH + 4
	return c
}

// movement is an arrow for a place against the year before: ▲ rose, ▼
// fell, nothing when it held or was not placed before.
func movement(ps []trends.YearPlace, i int) string {
	if i == 0 || ps[i-1].Place == 0 || ps[i].Place == ps[i-1].Place {
		return ""
	}
	if ps[i].Place < ps[i-1].Place {
		return "▲"
	}
	return "▼"
}

// factorChart draws the contributing factors by the organisations that
// reported them.
func factorChart(p *i18n.Printer, ch trends.FactorChart) templates.Chart {
	const rowH, barW = 44, 130
	c := templates.Chart{ID: "factors", Title: p.T("trends.factors_title"), Intro: p.T("trends.factors_intro"), Width: chartWidth}
	most := 0
	for _, r := range ch.Rows {
		most = max(most, r.Organizations)
	}
	c.Table.Head = []string{p.T("facet.factor"), p.T("trends.organizations"), p.T("trends.incidents")}
	for row, r := range ch.Rows {
		top := row * rowH
		name := p.PickText(r.Label, r.LabelKo)
		text, full := shorten(name, chartWidth)
		c.Labels = append(c.Labels, templates.ChartLabel{X: 0, Y: top + 14, Text: text, Anchor: "start", Title: full})
		w := scale(r.Organizations, most, barW)
		orgs := p.N("trends.orgs", r.Organizations)
		what := p.T("trends.factor_bar", "term", name, "orgs", orgs, "count", p.N("count.incidents", r.Incidents.Count))
		c.Marks = append(c.Marks, templates.Mark{X: 0, Y: top + 20, W: w, H: 16, Colour: "tc2", Href: libraryHref(r.Incidents), Title: what, Count: r.Incidents.Count})
		c.Labels = append(c.Labels, templates.ChartLabel{X: w + 5, Y: top + 33, Text: orgs + " · " + p.N("count.incidents", r.Incidents.Count), Anchor: "start", Class: "small"})
		c.Table.Rows = append(c.Table.Rows, templates.ChartRow{Head: name, Cells: []templates.Link{{Label: p.Num(r.Organizations)}, cell(p, r.Incidents)}})
	}
	c.Height = len(ch.Rows)*rowH + 4
	return c
}
