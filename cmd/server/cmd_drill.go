package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"casebook/internal/drill"
	"casebook/internal/drilltext"
	"casebook/internal/i18n"
	"casebook/internal/kubectl"
	"casebook/internal/library"
	"casebook/internal/triage"
	deflib "casebook/library"
)

const drillUsage = `Usage:
  casebook drill list [--lang ko] [--json]
  casebook drill run ID [--lang ko]
  casebook drill brief ID [--lang ko]
  casebook drill record [--kubeconfig K] [--context C] -n NS POD|KIND/NAME --route R [--id ID] [--dir DIR]

Drills are practice triage on recorded broken clusters. "run" plays one in the
terminal: type the read-only kubectl commands you would run (get pods,
describe pod, get events, describe node, logs --previous, ...) and read their
output from the recording; "answer" when you know the route. The debrief
scores the attempt (route, evidence found, commands used, time) and shows what
you missed. "brief" prints the facilitator's brief. "record" reads a staged or
real failure read-only and writes DIR/ID.snapshot.json and, when there is
none yet, a drill skeleton DIR/ID.yaml to fill in.
`

// runDrill implements "drill".
func runDrill(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, drillUsage)
		return nil
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "list":
		return runDrillList(args, getenv, stdout, stderr)
	case "run":
		return runDrillPlay(args, getenv, stdin, stdout, stderr, time.Now)
	case "brief":
		return runDrillBrief(args, getenv, stdout, stderr)
	case "record":
		return runDrillRecord(ctx, args, stdout, stderr)
	case "commands":
		return runDrillCommands(args, getenv, stdout, stderr)
	}
	return fmt.Errorf("drill: unknown command %q\n%s", sub, drillUsage)
}

// drillLibrary is what the drill commands read: the drills, the triage
// catalogue and the incidents they cite.
type drillLibrary struct {
	set *drill.Set
	cat *triage.Catalog
	lib *library.Library
}

func loadDrillLibrary(dir string, withIncidents bool) (*drillLibrary, error) {
	var fsys fs.FS = deflib.FS
	if dir != "" {
		fsys = os.DirFS(dir)
	}
	cat, err := loadCatalog(dir)
	if err != nil {
		return nil, err
	}
	set, problems := drill.Load(fsys)
	if len(set.Drills) == 0 {
		if len(problems) > 0 {
			return nil, fmt.Errorf("drill: no drill loaded; first problem: %s", problems[0])
		}
		return nil, errors.New("drill: the library has no drills")
	}
	dl := &drillLibrary{set: set, cat: cat}
	if withIncidents {
		dl.lib, _, _ = library.Load(fsys)
	}
	return dl, nil
}

// drillFlags parses the flags shared by list, run and brief; positional
// arguments may come before or after them.
func drillFlags(name string, args []string, getenv func(string) string, stderr io.Writer, extra func(*flag.FlagSet)) (lang, libDir string, rest []string, err error) {
	fl := flag.NewFlagSet("drill "+name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	// The terminal's locale picks the language unless --lang says.
	def := "en"
	if strings.HasPrefix(getenv("LANG"), "ko") || strings.HasPrefix(getenv("LC_ALL"), "ko") {
		def = "ko"
	}
	fl.StringVar(&lang, "lang", def, "language: en or ko (default from $LANG)")
	fl.StringVar(&libDir, "library", "", "library folder (default: the embedded library)")
	if extra != nil {
		extra(fl)
	}
	fl.Usage = func() { fmt.Fprint(stderr, drillUsage); fl.PrintDefaults() }
	for {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", "", nil, errHelp
			}
			return "", "", nil, exitCode(2)
		}
		if fl.NArg() == 0 {
			break
		}
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
	if lang != "en" && lang != "ko" {
		return "", "", nil, fmt.Errorf("drill: --lang %q: use en or ko", lang)
	}
	return lang, libDir, rest, nil
}

// drillPrinter is the message catalogue's printer for --lang.
func drillPrinter(lang string) *i18n.Printer {
	if lang == "ko" {
		return i18n.Messages().Printer(i18n.KO)
	}
	return i18n.Messages().Printer(i18n.EN)
}

func runDrillList(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var asJSON bool
	lang, libDir, rest, err := drillFlags("list", args, getenv, stderr, func(fl *flag.FlagSet) { fl.BoolVar(&asJSON, "json", false, "print JSON") })
	if err != nil {
		return err
	}
	pr := drillPrinter(lang)
	if len(rest) > 0 {
		return fmt.Errorf("drill list takes no arguments")
	}
	dl, err := loadDrillLibrary(libDir, false)
	if err != nil {
		return err
	}
	if asJSON {
		type item struct {
			ID         string   `json:"id"`
			Title      string   `json:"title"`
			Difficulty string   `json:"difficulty"`
			Family     string   `json:"family"`
			Incidents  []string `json:"incidents"`
		}
		var out []item
		for _, d := range dl.set.Drills {
			out = append(out, item{d.ID, d.Title.In(lang), string(d.Difficulty), d.Family().ID, d.Incidents})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\t%s\t%s\t\n", pr.T("drill.family"), pr.T("drill.difficulty"))
	for _, d := range dl.set.Drills {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.ID, drilltext.Family(pr, d.Family().ID), drilltext.Difficulty(pr, d.Difficulty), d.Title.In(lang))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s: casebook drill run ID\n", map[string]string{"en": "Play one", "ko": "실행"}[lang])
	return nil
}

func oneDrill(dl *drillLibrary, rest []string) (*drill.Drill, error) {
	if len(rest) != 1 {
		return nil, errors.New("drill: name one drill (casebook drill list shows them)")
	}
	d, ok := dl.set.Drill(rest[0])
	if !ok {
		return nil, fmt.Errorf("drill: no drill %q (casebook drill list shows them)", rest[0])
	}
	return d, nil
}

// runDrillPlay plays a drill at the terminal. now is the clock that times
// the attempt.
func runDrillPlay(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, now func() time.Time) error {
	lang, libDir, rest, err := drillFlags("run", args, getenv, stderr, nil)
	if err != nil {
		return err
	}
	pr := drillPrinter(lang)
	dl, err := loadDrillLibrary(libDir, true)
	if err != nil {
		return err
	}
	d, err := oneDrill(dl, rest)
	if err != nil {
		return err
	}
	w := func(en, ko string) string {
		if lang == "ko" {
			return ko
		}
		return en
	}
	fmt.Fprintf(stdout, "%s\n%s: %s · %s: %s\n\n", d.Title.In(lang), pr.T("drill.family"), drilltext.Family(pr, d.Family().ID),
		pr.T("drill.difficulty"), drilltext.Difficulty(pr, d.Difficulty))
	fmt.Fprintf(stdout, "%s (%s):\n%s\n\n", drilltext.Kind(pr, d.Start.Kind), d.Start.From, indent(d.Start.Text.In(lang), "  "))
	fmt.Fprintln(stdout, w(`Investigate with read-only kubectl commands. "help" lists what works, "hint" gives a hint,
"answer" when you know the route, "quit" to stop.`, `읽기 전용 kubectl 명령으로 조사하세요. "help"는 쓸 수 있는 명령, "hint"는 힌트,
원인을 알았으면 "answer", 그만두려면 "quit"을 입력합니다.`))
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	start := now()
	var keys []string
	hints := 0
	prompt := func() bool {
		fmt.Fprint(stdout, "\n$ ")
		return in.Scan()
	}
	for prompt() {
		line := strings.TrimSpace(in.Text())
		switch {
		case line == "":
			continue
		case line == "quit" || line == "exit":
			fmt.Fprintln(stdout, w("Stopped without an answer.", "답을 내지 않고 멈췄습니다."))
			return nil
		case line == "help":
			fmt.Fprintln(stdout, drillHelp(d, lang))
			continue
		case line == "hint":
			if hints < len(d.Hints) {
				fmt.Fprintf(stdout, "%s %d/%d: %s\n", pr.T("drill.hints"), hints+1, len(d.Hints), d.Hints[hints].In(lang))
				hints++
			} else {
				fmt.Fprintln(stdout, w("No more hints.", "남은 힌트가 없습니다."))
			}
			continue
		case line == "answer" || strings.HasPrefix(line, "answer "):
			route, ok := chooseRoute(in, stdout, dl.cat, strings.TrimSpace(strings.TrimPrefix(line, "answer")), lang)
			if !ok {
				return nil
			}
			fmt.Fprintln(stdout, w("Recovery direction, in a few sentences (end with an empty line):", "복구 방향을 몇 문장으로 적어 주세요 (빈 줄로 끝냅니다):"))
			var rec []string
			for in.Scan() {
				l := in.Text()
				if strings.TrimSpace(l) == "" {
					break
				}
				rec = append(rec, l)
			}
			db, err := d.Grade(drill.Attempt{Commands: keys, Route: route, Recovery: strings.Join(rec, "\n"), Elapsed: now().Sub(start)}, dl.cat)
			if err != nil {
				return err
			}
			printDebrief(stdout, db, dl, lang, hints)
			return nil
		}
		st, err := d.Run(line)
		if err != nil {
			var ke *kubectl.Error
			switch {
			case errors.As(err, &ke) && ke.Kind == kubectl.ReadOnly:
				fmt.Fprintf(stdout, "%s\n%s\n", err, pr.T("drill.readonly"))
			case errors.As(err, &ke) && ke.Kind == kubectl.Unsupported:
				fmt.Fprintf(stdout, "%s\n(%s)\n", err, pr.T("drill.unsupported"))
			default:
				fmt.Fprintln(stdout, err)
			}
			continue
		}
		if len(keys) >= drill.MaxCommands {
			fmt.Fprintln(stdout, w("That is the most commands a drill takes; answer now.", "명령 수 한도에 닿았습니다. 이제 답을 내세요."))
			continue
		}
		keys = append(keys, st.Key)
		fmt.Fprint(stdout, st.Output)
	}
	return in.Err()
}

func drillHelp(d *drill.Drill, lang string) string {
	ns := d.Snapshot.Target.Namespace
	lines := []string{
		"kubectl get pods [-n NS] [-o wide] [-A]", "kubectl describe pod NAME", "kubectl get events", "kubectl logs POD [-c C] [--previous]",
		"kubectl get nodes [-o wide] [--show-labels] [-L label]", "kubectl describe node NAME",
		"kubectl get deploy|rs|sts", "kubectl describe deploy|rs|sts|job NAME", "kubectl get resourcequota / describe resourcequota",
		"kubectl get pvc / describe pvc NAME / describe storageclass NAME", "kubectl get resourceclaims / deviceclasses",
		"kubectl get daemonsets -A / get pods -n NS", "kubectl get clusterpolicies", "kubectl describe priorityclass NAME",
	}
	head := map[string]string{"en": "Read-only commands (current namespace: " + ns + "):", "ko": "읽기 전용 명령 (현재 namespace: " + ns + "):"}[lang]
	return head + "\n  " + strings.Join(lines, "\n  ")
}

// chooseRoute asks for the route: an id, or a number from the list.
func chooseRoute(in *bufio.Scanner, stdout io.Writer, cat *triage.Catalog, given, lang string) (string, bool) {
	routes := cat.RouteIDs()
	sort.Strings(routes)
	pick := func(s string) (string, bool) {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(routes) {
			return routes[n-1], true
		}
		if _, ok := cat.Route(s); ok {
			return s, true
		}
		return "", false
	}
	if r, ok := pick(given); ok {
		return r, true
	}
	for i, r := range routes {
		fmt.Fprintf(stdout, "%3d  %s\n", i+1, r)
	}
	for {
		fmt.Fprint(stdout, map[string]string{"en": "Route (number or id): ", "ko": "경로 (번호나 id): "}[lang])
		if !in.Scan() {
			return "", false
		}
		if r, ok := pick(strings.TrimSpace(in.Text())); ok {
			return r, true
		}
		fmt.Fprintln(stdout, map[string]string{"en": "Not a route; pick a number from the list.", "ko": "없는 경로입니다. 목록의 번호를 고르세요."}[lang])
	}
}

func printDebrief(w io.Writer, db *drill.Debrief, dl *drillLibrary, lang string, hints int) {
	pr := drillPrinter(lang)
	d := db.Drill
	fmt.Fprintf(w, "\n== %s: %s ==\n", pr.T("drill.debrief"), d.Title.In(lang))
	fmt.Fprintf(w, "%s: %s\n", pr.T("drill.chosen"), orDash(db.Attempt.Route))
	fmt.Fprintf(w, "%s\n", drilltext.Verdict(pr, db.Verdict))
	fmt.Fprintf(w, "%s: %s\n", pr.T("drill.expected"), db.Expected)
	s := db.Score
	fmt.Fprintf(w, "%s: %d/100\n  %s\n  %s\n  %s\n  %s\n", pr.T("drill.score"), s.Total,
		pr.T("drill.points_route", "points", s.Route), pr.T("drill.points_evidence", "points", s.Evidence),
		pr.T("drill.points_commands", "points", s.Commands, "used", s.Used, "par", s.Par),
		pr.T("drill.points_time", "points", s.Time, "elapsed", db.Attempt.Elapsed.Round(time.Second).String(), "target", d.Difficulty.Target().String()))
	if hints > 0 {
		fmt.Fprintf(w, "  %s: %d\n", pr.T("drill.hints"), hints)
	}
	ev := func(title string, list []drill.Evidence, mark string) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, e := range list {
			fmt.Fprintf(w, "  %s %s\n      %s: %s\n", mark, e.Line, "$", commandText(e.Command))
			if why := e.Why.In(lang); why != "" {
				fmt.Fprintf(w, "      %s\n", why)
			}
		}
	}
	ev(pr.T("drill.found"), db.Found, "+")
	ev(pr.T("drill.missed"), db.Missed, "-")
	if d.Decoy != nil {
		fmt.Fprintf(w, "%s (%s): %s\n", pr.T("drill.decoy"), d.Decoy.Route, d.Decoy.Text.In(lang))
	}
	fmt.Fprintf(w, "%s:\n%s\n", pr.T("drill.recovery"), indent(d.Recovery.In(lang), "  "))
	rec := db.Attempt.Recovery
	if strings.TrimSpace(rec) == "" {
		rec = pr.T("drill.no_recovery")
	}
	fmt.Fprintf(w, "%s:\n%s\n", pr.T("drill.yours"), indent(rec, "  "))
	if o := db.Outcome; o != nil {
		fmt.Fprintf(w, "%s: /playbooks/%s#%s\n", pr.T("drill.playbook"), o.Playbook, o.Section)
	}
	fmt.Fprintf(w, "%s:\n", pr.T("drill.incidents"))
	for _, id := range d.Incidents {
		title := ""
		if dl.lib != nil {
			if inc, ok := dl.lib.Incident(id); ok {
				title = inc.Title
				if lang == "ko" && inc.TitleKo != "" {
					title = inc.TitleKo
				}
			}
		}
		fmt.Fprintf(w, "  %s  %s  /incidents/%s\n", id, title, id)
	}
	fmt.Fprintf(w, "%s:\n%s\n", pr.T("drill.teaches"), indent(d.Teaches.In(lang), "  "))
}

func commandText(c string) string {
	if strings.HasPrefix(c, "kubectl ") {
		return c
	}
	return "kubectl " + c
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func runDrillBrief(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	lang, libDir, rest, err := drillFlags("brief", args, getenv, stderr, nil)
	if err != nil {
		return err
	}
	pr := drillPrinter(lang)
	dl, err := loadDrillLibrary(libDir, true)
	if err != nil {
		return err
	}
	d, err := oneDrill(dl, rest)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s\n%s: %s · %s: %s\n\n", pr.T("drill.brief"), d.Title.In(lang), pr.T("drill.family"),
		drilltext.Family(pr, d.Family().ID), pr.T("drill.difficulty"), drilltext.Difficulty(pr, d.Difficulty))
	fmt.Fprintf(stdout, "%s — %s (%s):\n%s\n\n", pr.T("drill.start"), drilltext.Kind(pr, d.Start.Kind), d.Start.From, indent(d.Start.Text.In(lang), "  "))
	fmt.Fprintf(stdout, "%s:\n", pr.T("drill.hints"))
	for i, h := range d.Hints {
		fmt.Fprintf(stdout, "  %d. %s\n", i+1, h.In(lang))
	}
	fmt.Fprintf(stdout, "\n%s: %s\n%s:\n", pr.T("drill.expected"), d.Route, pr.T("drill.evidence"))
	for _, e := range d.Evidence {
		fmt.Fprintf(stdout, "  - %s\n      %s: %s\n      %s\n", e.Line, "$", commandText(e.Command), e.Why.In(lang))
	}
	if d.Decoy != nil {
		fmt.Fprintf(stdout, "%s (%s): %s\n", pr.T("drill.decoy"), d.Decoy.Route, d.Decoy.Text.In(lang))
	}
	fmt.Fprintf(stdout, "\n%s:\n%s\n\n%s:\n%s\n", pr.T("drill.recovery"), indent(d.Recovery.In(lang), "  "), pr.T("drill.teaches"), indent(d.Teaches.In(lang), "  "))
	fmt.Fprintf(stdout, "%s: %s\n", pr.T("drill.incidents"), strings.Join(d.Incidents, ", "))
	return nil
}

// runDrillCommands prints, one per line and without "kubectl", the commands
// whose output a drill shows: the usual first reads and every evidence
// command. scripts/drills-record.sh runs them with kubectl on the staged
// cluster, so the renderer can be compared with kubectl itself.
func runDrillCommands(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	_, libDir, rest, err := drillFlags("commands", args, getenv, stderr, nil)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return errors.New("drill: name one drill (casebook drill list shows them)")
	}
	var fsys fs.FS = deflib.FS
	if libDir != "" {
		fsys = os.DirFS(libDir)
	}
	// Right after a recording the evidence lines may not match yet; the
	// commands are wanted all the same.
	d, problems := drill.ReadOne(fsys, rest[0])
	if d == nil {
		if len(problems) > 0 {
			return fmt.Errorf("drill: %s", problems[0])
		}
		return fmt.Errorf("drill: no drill %q", rest[0])
	}
	for _, c := range d.Commands() {
		fmt.Fprintln(stdout, c)
	}
	return nil
}
