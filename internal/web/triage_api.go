package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"casebook/internal/answer"
	"casebook/internal/content"
	"casebook/internal/triage"
)

// readPaste reads a classify body: text/plain, or JSON {"text": "..."}.
// A text over 1 MiB (after decoding the JSON) is 413; an empty text is 400.
func readPaste(w http.ResponseWriter, r *http.Request) (string, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, pasteBodyLimit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return "", userError(http.StatusRequestEntityTooLarge, "error.body_too_large")
		}
		return "", badRequestMsg("error.body_unreadable", "detail", err.Error())
	}
	text := string(body)
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/json" {
		var in struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return "", badRequestMsg("error.body_invalid", "detail", err.Error())
		}
		text = in.Text
	}
	if len(text) > triage.MaxInput {
		return "", userError(http.StatusRequestEntityTooLarge, "error.body_too_large")
	}
	if strings.TrimSpace(text) == "" {
		return "", badRequestMsg("error.text_empty")
	}
	return text, nil
}

// answerPaste answers a paste through the one service the web, MCP and CLI
// share: the paste redacted, the routes, and the library entries a search
// with the paste's lines finds. Without a search index, or when the search
// fails, the routes alone are the answer (the failure is logged).
func (s *Server) answerPaste(ctx context.Context, c *content.Content, cat *triage.Catalog, text string) answer.Answer {
	var srch answer.Searcher
	if c.Search != nil {
		srch = c.Search
	}
	res, err := answer.Paste(ctx, cat, srch, text, printer(ctx).Lang())
	if err != nil {
		s.log.Warn("related search for a paste failed", "err", err)
	}
	return res
}

func (s *Server) handleAPIClassify(w http.ResponseWriter, r *http.Request) error {
	_, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	text, err := readPaste(w, r)
	if err != nil {
		return err
	}
	c, err := s.current(r)
	if err != nil {
		return err
	}
	res := s.answerPaste(r.Context(), c, cat, text)
	s.observeTriage(res.Result)
	writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *Server) handleAPITrees(w http.ResponseWriter, r *http.Request) error {
	_, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	type treeSummary struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Summary string `json:"summary,omitempty"`
		Root    bool   `json:"root,omitempty"`
		Start   string `json:"start"`
		Nodes   int    `json:"nodes"`
	}
	out := []treeSummary{}
	for _, t := range cat.Trees {
		out = append(out, treeSummary{t.ID, t.Title, t.Summary, t.Root, t.Start, len(t.Nodes)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"trees": out, "routes": cat.RouteIDs()})
	return nil
}

func (s *Server) handleAPITree(w http.ResponseWriter, r *http.Request) error {
	_, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	t, ok := cat.Tree(chi.URLParam(r, "id"))
	if !ok {
		return userError(http.StatusNotFound, "error.no_tree", "id", chi.URLParam(r, "id"))
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// observeTriage is where metrics hook in; it does nothing without them.
func (s *Server) observeTriage(res triage.Result) {
	if s.metrics != nil && len(res.Routes) > 0 {
		s.metrics.TriageOutcome(res.Routes[0].Route, "classify")
	}
}
