package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	deflib "casebook/library"

	"casebook/internal/content"
	"casebook/internal/mcp"
)

// runMCP serves the MCP tools over stdin and stdout, for an assistant that
// starts Casebook as a local MCP server. Standard output carries the
// protocol and nothing else; logs go to standard error.
func runMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseLibraryConfig("mcp", mcpUsage, "info", args, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	loader := content.NewLoader(libraryFS(cfg), cfg.Data, log, builders(cfg.Data, log)...)
	defer loader.Close()
	// The library loads before the first message is read, so no tool call
	// ever meets an empty server; a cold start takes a second or two.
	if _, err := loader.Load(ctx); err != nil {
		return fmt.Errorf("mcp: no valid library to serve: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Library != "" {
		go watchLibrary(ctx, cfg.Library, loader, log)
	}
	s := mcp.NewServer(loader, mcp.Options{Version: version(), Log: log})
	return mcp.ServeIO(ctx, s, stdin, stdout)
}

const mcpUsage = `Usage: casebook mcp [flags]

Serves Casebook's read-only tools to an AI assistant over the Model Context
Protocol on standard input and output. The same tools answer at /mcp on a
running portal (streamable HTTP). Logs go to standard error.

Flags:
`

// parseLibraryConfig reads the flags the one-shot commands share with serve:
// which library, where its derived data lives, and logging.
func parseLibraryConfig(name, usage, logLevel string, args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fl := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), getenv: getenv}
	fl.SetOutput(stderr)
	libraryFlags(fl, &c, logLevel)
	fl.Usage = func() {
		fmt.Fprint(stderr, usage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, errHelp
		}
		return c, exitCode(2)
	}
	if fl.NArg() > 0 {
		return c, fmt.Errorf("%s: unexpected argument %q", name, fl.Arg(0))
	}
	return c, checkLibraryConfig(c)
}

// libraryFlags registers --library, --data and the log flags with the same
// names, defaults and environment variables as serve.
func libraryFlags(fl *flagSet, c *config, logLevel string) {
	fl.str(&c.Library, "library", "", "use this library folder (the one holding taxonomy.yaml) instead of the embedded one")
	fl.str(&c.Data, "data", defaultDataDir(fl.getenv), "folder for derived data (SQLite read model, search index); safe to delete")
	fl.str(&c.LogFormat, "log-format", "text", "log format: text or json")
	fl.str(&c.LogLevel, "log-level", logLevel, "log level: debug, info, warn, error")
}

func checkLibraryConfig(c config) error {
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("--log-format must be text or json, not %q", c.LogFormat)
	}
	if c.Library != "" {
		if _, err := os.Stat(filepath.Join(c.Library, "taxonomy.yaml")); err != nil {
			return fmt.Errorf("--library %s is not a library folder: %v", c.Library, err)
		}
	}
	return nil
}

func libraryFS(c config) fs.FS {
	if c.Library == "" {
		return deflib.FS
	}
	return os.DirFS(c.Library)
}
