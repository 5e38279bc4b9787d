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
	"syscall"
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
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

const usage = `Usage: casebook [command] [flags]

Commands:
  serve      run the web portal (the default; see "serve --help")
  lint [DIR] check a library folder (default: the embedded library); exit 1 on any problem
  help       show this text
`
