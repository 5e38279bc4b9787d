package templates

// TriagePage is the wizard: the first screen (symptoms and the paste box),
// a question, or an outcome.
type TriagePage struct {
	Chrome
	TreeTitle    string
	Start        []Link // first screen: the symptoms to pick from
	StartText    string
	Paste        string
	PasteResult  *PasteView
	Crumbs       []Crumb
	Question     *QuestionView
	Outcome      *OutcomeView
	BackHref     string
	RestartHref  string
	Notices      []string
	Cluster      *ClusterForm
	Scan         []ScanRow
	SnapshotHref string
}

// ScanRow is one troubled object of a namespace scan; Href is empty for
// what triage takes no target of.
type ScanRow struct {
	Target, Href, Route, Diagnosis string
}

// PasteView is what the classifier found in a paste.
type PasteView struct {
	Routes       []RouteView
	ContinueHref string
	Empty        bool
	// Weak is set when routes matched only on weak evidence: they are the
	// closest guesses, shown after the symptom picker.
	Weak bool
	// Related are library entries a search with the paste's most specific
	// lines found (Kind "incident" or "playbook").
	Related []Link
	// ShareHref shows this result again, the paste carried in the link;
	// ShareTooLong is set instead when the paste is too long for a link.
	ShareHref    string
	ShareTooLong bool
	// Redacted counts the secrets taken out of the paste before it was
	// read; the page says so.
	Redacted int
	// Others are the routes under the confidence a card needs, folded
	// under "Other possibilities".
	Others []RouteView
	// Search is set when the paste was prose the classifier found no
	// message in: the library searched with its words, as the search box
	// does.
	Search *PasteSearch
}

// PasteSearch is the search a prose paste fell back to: its first results
// as the search page shows them, and the link to all of them there.
type PasteSearch struct {
	Query string
	Total int
	Cards []CaseCard
	Href  string
}

// RouteView is one ranked route.
type RouteView struct {
	Route string
	// Title names the route for people (its playbook section's heading).
	Title       string
	Href        string // playbook section
	Playbook    string
	Confidence  int // percent
	Evidence    []EvidenceLine
	ContinueURL string
	Incidents   []Link // the incidents that show this route
	Specifics   *SpecificsView
	// The first card only: the scheduler message read as one diagnosis,
	// and what to do, filled with the paste's pod and namespace.
	Reading     *ReadingView
	Diagnosis   string
	Commands    []string
	Mitigation  []string
	Verify      []string
	EnglishOnly bool
}

// ReadingView is a scheduler message with several reasons, in the order the
// scheduler checks them.
type ReadingView struct {
	Title, Note string
	Reasons     []ReadingReason
}

// ReadingReason is one reason: "4 of 6 nodes" and the scheduler's words.
type ReadingReason struct {
	Text, Reason string
	First        bool
}

// SpecificsView is what the evidence names for a scheduling failure: the
// taints to tolerate, the labels no node has, the resources short.
type SpecificsView struct {
	Taints     []TaintView
	Selectors  []SelectorView
	Shortfalls []ShortfallView
}

// TaintView is one untolerated taint and the toleration that admits it.
type TaintView struct {
	Taint      string // key=value:effect
	Nodes      string // the nodes that carry it, or how many
	Toleration string // YAML to add to the pod spec
}

// SelectorView is one label the pod selects that no node carries.
type SelectorView struct {
	Label   string // key=wanted
	Have    []string
	Nodes   string
	Command string
}

// ShortfallView is one resource the pod asks more of than a node has free.
type ShortfallView struct {
	Resource  string
	Requested string
	Nodes     []string // "node: 2 free, 2 short"
	Total     string
	Count     string
}

// EvidenceLine is a matched line of a paste or a fact read from a cluster.
type EvidenceLine struct {
	LineNo int
	Text   string
	Signal string
}

// Crumb is an answered question.
type Crumb struct {
	Question   string
	Answer     string
	Source     string // person, probe, paste
	Evidence   []EvidenceLine
	Note       string
	ChangeHref string
	// NoteEnglishOnly marks a note only the English text exists for.
	NoteEnglishOnly bool
}

// QuestionView is the question to answer now.
type QuestionView struct {
	// Step is this question's number in the walk, Of the most it can
	// take from here ("step 3 of at most 9").
	Step, Of int
	// UnsureHref shows the question again with where each answer leads;
	// Unsure is set on that page.
	UnsureHref string
	Unsure     bool
	// Leads lists, per answer (same order), the results it can end in.
	Leads   [][]Link
	ID      string
	Text    string
	Help    string
	Command string
	Answers []Link
	Unknown string // why a probe could not answer, if it tried
	// AskNode is set when the command names a node nobody has given yet.
	AskNode *NodeAsk
	// EnglishOnly marks a question shown in English on a Korean page.
	EnglishOnly bool
}

// OutcomeView is where the walk ends.
type OutcomeView struct {
	Route string
	// Title names the result for people; Steps is how many answers led here.
	Title         string
	Steps         int
	Specifics     *SpecificsView
	Diagnosis     string
	Commands      []string
	Mitigation    []string
	Verify        []string
	PlaybookHref  string
	PlaybookTitle string
	SectionTitle  string
	Incidents     []Link
	WriteupHref   string
	// The write-up becomes WriteupPath (id WriteupID) in WriteupLayer;
	// WriteupCommands add it to the layer's repository. WriteupKoHref is
	// the Korean body draft; WriteupOther, drafts for the other layers.
	WriteupID, WriteupPath, WriteupLayer string
	WriteupCommands                      []string
	// WriteupNoLayer: no team layer is loaded, WriteupID is a placeholder
	// and the commands start a layer.
	WriteupNoLayer bool
	WriteupKoHref  string
	WriteupOther   []Link
	Evidence       []EvidenceLine
	// EnglishOnly marks an outcome shown in English on a Korean page.
	EnglishOnly bool
}

// ClusterForm is the "read from cluster" part of the first screen.
type ClusterForm struct {
	Enabled    bool
	Namespaces []string
	Namespace  string
	Pods       []string
	Message    string
}

// NodeAsk is the form that asks for the node once: it reloads the same
// question with node= added, keeping the walk and the rest of the context.
type NodeAsk struct {
	Tree, Answers string
	Keep          []Field
}

// Field is a hidden form field.
type Field struct{ Name, Value string }
