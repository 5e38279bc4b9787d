package templates

// DrillListPage lists the drills by route family.
type DrillListPage struct {
	Chrome
	Count  int
	Groups []DrillGroup
}

// DrillGroup is the drills of one route family.
type DrillGroup struct {
	ID, Family string
	Drills     []DrillCard
}

// DrillCard is one drill in the list.
type DrillCard struct {
	ID, Title, Difficulty, Start string
	Href, Brief, Debrief         string
	Decoy                        bool
	Incidents                    []Link
}

// DrillRunPage is the runner: the symptom, the terminal and the answer.
type DrillRunPage struct {
	Chrome
	ID, Title, Difficulty, Family   string
	StartKind, StartFrom, StartText string
	Namespace                       string
	Steps                           []DrillStep
	CmdError, Typed                 string
	Action, DebriefAction           string
	Hidden                          []KV // the state carried by both forms
	Routes                          []RouteGroup
	Examples                        []string
	Restart, Brief                  string
	Elapsed, Target                 string
}

// KV is one hidden form field.
type KV struct{ Key, Value string }

// DrillStep is one command and its output.
type DrillStep struct {
	N               int
	Command, Output string
}

// RouteGroup is the routes of one family, for a select: Label names the
// route, Href is its id (the option's value).
type RouteGroup struct {
	Family string
	Routes []Link
}

// DrillSummary is what the brief and the debrief both show.
type DrillSummary struct {
	ID, Title, Difficulty, Family   string
	StartKind, StartFrom, StartText string
	Route, Diagnosis                string
	Playbook                        Link
	Evidence                        []DrillEvidence
	Answers                         []DrillAnswer
	Decoy                           *DrillDecoy
	Hints                           []string
	Recovery, Teaches               string
	Incidents                       []Link
	Probed                          string // what live triage makes of the recording
	ProbedOK                        bool
	Target                          string
	Par                             int
	Run, Brief, Debrief             string
}

// DrillEvidence is a line to find and the command that shows it.
type DrillEvidence struct{ Command, Line, Why string }

// DrillAnswer is a question the recording cannot answer and what gives
// the answer away.
type DrillAnswer struct{ Question, Answer, Line, Why string }

// DrillDecoy is the plausible cause that does not act.
type DrillDecoy struct {
	Route, Text string
	Evidence    []DrillEvidence
}

// DrillBriefPage is the facilitator's printable brief.
type DrillBriefPage struct {
	Chrome
	DrillSummary
}

// DrillDebriefPage is the debrief: the person's scored attempt when there
// is one, and what the drill teaches.
type DrillDebriefPage struct {
	Chrome
	DrillSummary
	Attempt *DrillAttempt
}

// DrillAttempt is a scored attempt.
type DrillAttempt struct {
	Route, Verdict, VerdictText, Recovery             string
	Total, RoutePts, EvidencePts, CommandPts, TimePts int
	Used, Par                                         int
	Elapsed, Target                                   string
	Found, Missed, DecoySeen                          []DrillEvidence
	Commands                                          []string
	Retry                                             string
}
