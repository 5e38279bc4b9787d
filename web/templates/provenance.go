package templates

// Provenance is where an incident or playbook page comes from: its layer,
// the page that edits its file, and when the file last changed.
type Provenance struct {
	Layer      string // "public" or a team layer's name
	LayerLabel string // the layer as the page's language names it
	LayerTitle string // the layer's description, if it has one
	Path       string // the file, as the layer's repository holds it
	EditURL    string // "" when the layer names no Git host
	Changed    string // the day the file last changed, formatted; "" when unknown
	ChangedISO string
	// ChangedNote says where Changed comes from (the last commit, or the
	// file's modification time).
	ChangedNote string
	// Overrides names the lower layer whose playbook of the same id this
	// one replaces ("" when it replaces none).
	Overrides     string
	OverridesPath string
}
