// Command server runs Casebook: the web portal, and the lint, triage and
// export commands that share its content.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	var exit exitCode
	switch {
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case errors.Is(err, errHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "casebook:", err)
		os.Exit(1)
	}
}

// exitCode lets a command choose its exit status without printing an error
// (lint has already printed its problems).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

var errHelp = errors.New("help requested")

// run dispatches to a subcommand. Everything it needs from the process comes
// in as arguments so tests can run it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, getenv, stdout, stderr)
	case "lint":
		return runLint(ctx, args, stdout, stderr)
	case "mcp":
		return runMCP(ctx, args, getenv, stdin, stdout, stderr)
	case "export":
		return runExport(ctx, args, getenv, stdout, stderr)
	case "triage":
		if len(args) > 0 && args[0] == "classify" {
			dir := triageLibraryFlag(args[1:])
			cat, err := loadCatalog(dir)
			if err != nil {
				return err
			}
			return runClassify(ctx, stripLibraryFlag(args[1:]), stdin, stdout, stderr, cat, relatedSearch(dir, getenv))
		}
		return runTriageLive(ctx, args, stdout, stderr)
	case "gaps":
		return runGaps(ctx, args, stdout, stderr)
	case "drill":
		return runDrill(ctx, args, getenv, stdin, stdout, stderr)
	case "new":
		return runNew(ctx, args, stdout, stderr, time.Now)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

const usage = `Usage: casebook [command] [flags]

Commands:
  serve      run the web portal (the default; see "serve --help")
  lint [DIR...]
             check the library (default: the embedded one) or a stack of layers; exit 1 on any problem
  new incident --layer DIR [--title T] [--route R]
             write a new incident file with the layer's next free id, TODO where a person writes
  triage classify [FILE] [--json]
             route a pasted error (a file or stdin) to a playbook section
  triage [--kubeconfig K] -n NS POD | --scan -n NS | --snapshot FILE
             read the cluster read-only and route a troubled pod
  gaps [--kubeconfig K] [--json] [--fail-on high] | --snapshot FILE
             check the cluster for the conditions behind the library's incidents
  drill list | run ID | brief ID | record -n NS POD --route R
             practise triage on recorded broken clusters, or record one
  mcp        serve the read-only MCP tools for AI assistants on stdin/stdout
  export     write the library (or a filtered part) as JSON or CSV
  help       show this text
`

// triageLibraryFlag finds "--library DIR" among classify's arguments: the
// classifier uses that library's signals instead of the embedded ones.
func triageLibraryFlag(args []string) string {
	for i, a := range args {
		if a == "--library" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--library="); ok {
			return v
		}
	}
	return ""
}

func stripLibraryFlag(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--library" {
			i++
			continue
		}
		if strings.HasPrefix(args[i], "--library=") {
			continue
		}
		out = append(out, args[i])
	}
	return out
}
