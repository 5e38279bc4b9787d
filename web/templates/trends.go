package templates

// TrendsPage is /trends: the selection's charts, each with its table.
type TrendsPage struct {
	Chrome    Chrome
	Chips     []Chip
	ClearHref string
	Incidents int
	Charts    []Chart
}

// Chart is one chart drawn as SVG on the server: Marks are its bars (or
// cells), Labels its text, both in the coordinates of a Width × Height
// view box; Table holds the same numbers.
type Chart struct {
	ID     string
	Title  string
	Intro  string
	Width  int
	Height int
	Legend []LegendEntry
	Marks  []Mark
	Labels []ChartLabel
	Table  ChartTable
}

// LegendEntry names one colour of a chart.
type LegendEntry struct {
	Label  string
	Colour string // a class, tc0…tc9
}

// Mark is a rectangle of a chart, linked to the library filtered to what
// it counts when Href is set; Title says what it counts in words.
type Mark struct {
	X, Y, W, H int
	Colour     string
	Href       string
	Title      string
	Count      int
}

// ChartLabel is a text of a chart; Class is "", "on-bar" (white on a
// bar), "small" or "head".
type ChartLabel struct {
	X, Y   int
	Text   string
	Anchor string // start, middle or end
	Class  string
	Title  string // the whole text when Text was shortened
}

// ChartTable is a chart's numbers as a table: a heading column, then one
// cell per column; a cell with a Href links to what it counts.
type ChartTable struct {
	Head []string
	Rows []ChartRow
}

// ChartRow is one row of a chart's table.
type ChartRow struct {
	Head  string
	Cells []Link
}
