package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"casebook/internal/cluster"
	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/live"
	"casebook/internal/mcp"
	"casebook/internal/search"
)

// runMCP serves the MCP tools over stdin and stdout, for an assistant that
// starts Casebook as a local MCP server. Standard output carries the
// protocol and nothing else; logs go to standard error.
func runMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	fl := &flagSet{FlagSet: flag.NewFlagSet("mcp", flag.ContinueOnError), getenv: getenv}
	fl.SetOutput(stderr)
	if err := libraryFlags(fl, &cfg, "info"); err != nil {
		return err
	}
	if err := liveFlags(fl, &cfg); err != nil {
		return err
	}
	var memLimit string
	memoryFlag(fl, &memLimit)
	fl.Usage = func() {
		fmt.Fprint(stderr, mcpUsage)
		fl.PrintDefaults()
	}
	if err := parseFlags(fl, args); err != nil {
		return err
	}
	if err := checkLibraryConfig(cfg); err != nil {
		return err
	}
	mem, err := parseMemoryFlag(memLimit)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	configureMemory(mem, getenv, log)
	stack, err := libraryStack(cfg)
	if err != nil {
		return err
	}
	loader := content.NewStackLoader(stack, cfg.Data, log)
	loader.Memory = newGCPolicy()
	loader.Search = search.Options{CacheBytes: -1}
	defer loader.Close()
	opts := mcp.Options{Version: version(), Log: log, Drills: drill.NewService(stack.Layers()[0].FS, contentVersion(loader))}
	if cfg.Kubeconfig != "" || cfg.InCluster {
		// Connecting reads the kubeconfig only, so a bad one fails here,
		// before the library load.
		r, err := cluster.Connect(clusterOptions(cfg))
		if err != nil {
			return fmt.Errorf("mcp: live triage: %w", err)
		}
		// One user on their own kubeconfig: no access policy, no limiter.
		opts.Live = live.New(live.Options{Reader: r, Namespaces: splitList(cfg.Namespaces), Timeout: cfg.ClusterTimeout})
		opts.Gaps = liveGaps(r, loader)
		log.Info("live triage on: triage_pod reads the cluster read-only", "namespaces", cfg.Namespaces)
	}
	// The library loads before the first message is read, so no tool call
	// ever meets an empty server; a cold start takes a second or two.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watchLayers(ctx, cfg.Data, loader, log) // before the load: see watchLibrary
	if _, err := loader.Load(ctx); err != nil {
		return fmt.Errorf("mcp: no valid library to serve: %w", err)
	}
	return mcp.ServeIO(ctx, mcp.NewServer(loader, opts), stdin, stdout)
}

// liveFlags registers serve's live-triage flags, with the same names and
// environment variables, so one configuration turns triage_pod on for both.
func liveFlags(fl *flagSet, c *config) error {
	fl.str(&c.Kubeconfig, "kubeconfig", "", "offer triage_pod, reading the cluster of this kubeconfig read-only (see deploy/rbac-readonly.yaml)")
	fl.str(&c.KubeContext, "context", "", "kubeconfig context for live triage (default: the current one)")
	fl.boolean(&c.InCluster, "in-cluster", false, "offer triage_pod with client-go's standard loading rules: $KUBECONFIG, ~/.kube/config, or the pod's service account")
	fl.str(&c.Namespaces, "namespaces", "", "comma-separated namespaces live triage may read (default: any)")
	fl.boolean(&c.ReadLogs, "read-logs", false, "let live triage read previous container logs (needs get pods/log)")
	return fl.duration(&c.ClusterTimeout, "cluster-timeout", 10*time.Second, "bound on reading the cluster for one live triage")
}

const mcpUsage = `Usage: casebook mcp [flags]

Serves Casebook's read-only tools to an AI assistant over the Model Context
Protocol on standard input and output. The same tools answer at /mcp on a
running portal (streamable HTTP). Logs go to standard error. With
--kubeconfig or --in-cluster, as for serve, the triage_pod tool reads the
cluster read-only.

Flags:
`

// parseFlags parses a command's flags; it takes no arguments besides them.
func parseFlags(fl *flagSet, args []string) error {
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return exitCode(2)
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fl.Name(), fl.Arg(0))
	}
	return nil
}

// libraryFlags registers --library, --data and the log flags with the same
// names, defaults and environment variables as serve.
func libraryFlags(fl *flagSet, c *config, logLevel string) error {
	fl.libraries(&c.Libraries, libraryUsage)
	fl.boolean(&c.NoEmbedded, "no-embedded", false, "leave the embedded public library out: the first --library folder is the bottom layer")
	fl.str(&c.Data, "data", defaultDataDir(fl.getenv), "folder for derived data (SQLite read model, search index); safe to delete")
	fl.str(&c.LogFormat, "log-format", "text", "log format: text or json")
	fl.str(&c.LogLevel, "log-level", logLevel, "log level: debug, info, warn, error")
	return layerFileFlag(fl, &c.LayerFileMB)
}

func checkLibraryConfig(c config) error {
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("--log-format must be text or json, not %q", c.LogFormat)
	}
	_, err := libraryLayers(c.Libraries, c.NoEmbedded, c.layerFileLimit())
	return err
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (casebook triage -n ns POD --json), returning the
// positional ones.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, exitCode(2)
		}
		if fl.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
}
