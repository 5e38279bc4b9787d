package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"

	"casebook/internal/bench/fts5"
	"casebook/internal/library"
	"casebook/internal/search"
)

// relevanceCase is one entry of internal/search/testdata/relevance.yaml.
type relevanceCase struct {
	Query  string   `yaml:"query"`
	Expect []string `yaml:"expect"`
}

// Score is the relevance of one engine on the relevance set.
type Score struct {
	MRR  float64 `json:"mrr10"` // mean reciprocal rank of the first expected hit in the top 10
	Hit3 float64 `json:"hit3"`  // share of queries with an expected hit in the top 3
	Miss int     `json:"miss"`  // queries with no expected hit in the top 10
}

// Relevance compares Casebook's search and the FTS5 baseline on the shipped
// library.
type Relevance struct {
	Queries int   `json:"queries"`
	Search  Score `json:"search"`
	FTS5    Score `json:"fts5"`
	Tuned   Score `json:"fts5_tuned"`
	// The same over the Korean and mixed queries alone (any Hangul).
	Korean       int   `json:"korean"`
	SearchKorean Score `json:"search_korean"`
	FTS5Korean   Score `json:"fts5_korean"`
	TunedKorean  Score `json:"fts5_tuned_korean"`
}

// MeasureRelevance scores both engines on the library in libDir with the
// relevance set in file; dir holds their indexes.
func MeasureRelevance(ctx context.Context, libDir, file, dir string) (*Relevance, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cases []relevanceCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	lib, _, err := library.Load(os.DirFS(libDir))
	if err != nil {
		return nil, err
	}
	ix, err := search.Open(filepath.Join(dir, "search"), lib)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	fx, err := fts5.Build(ctx, filepath.Join(dir, "fts5.db"), lib)
	if err != nil {
		return nil, err
	}
	defer fx.Close()
	tx, err := fts5.BuildTuned(ctx, filepath.Join(dir, "fts5-tuned.db"), lib)
	if err != nil {
		return nil, err
	}
	defer tx.Close()
	rel := &Relevance{Queries: len(cases)}
	var bleveRanks, ftsRanks, tunedRanks []int
	var koB, koF, koT []int
	for _, c := range cases {
		res, err := ix.Search(ctx, search.Request{Query: c.Query, PerPage: perPage})
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", c.Query, err)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		bleveRanks = append(bleveRanks, rankOf(ids, c.Expect))
		fres, err := fx.Search(ctx, fts5.Request{Query: c.Query, PerPage: perPage})
		if err != nil {
			return nil, fmt.Errorf("fts5 %q: %w", c.Query, err)
		}
		ids = ids[:0]
		for _, h := range fres.Hits {
			ids = append(ids, h.ID)
		}
		ftsRanks = append(ftsRanks, rankOf(ids, c.Expect))
		tres, err := tx.Search(ctx, fts5.Request{Query: c.Query, PerPage: perPage})
		if err != nil {
			return nil, fmt.Errorf("tuned fts5 %q: %w", c.Query, err)
		}
		ids = ids[:0]
		for _, h := range tres.Hits {
			ids = append(ids, h.ID)
		}
		tunedRanks = append(tunedRanks, rankOf(ids, c.Expect))
		if hasHangulRune(c.Query) {
			n := len(bleveRanks) - 1
			koB, koF, koT = append(koB, bleveRanks[n]), append(koF, ftsRanks[n]), append(koT, tunedRanks[n])
		}
	}
	rel.Search, rel.FTS5, rel.Tuned = score(bleveRanks), score(ftsRanks), score(tunedRanks)
	rel.Korean = len(koB)
	rel.SearchKorean, rel.FTS5Korean, rel.TunedKorean = score(koB), score(koF), score(koT)
	return rel, nil
}

// rankOf is the 1-based rank of the first expected id, 0 if none is there.
func rankOf(ids, expect []string) int {
	for i, id := range ids {
		if slices.Contains(expect, id) {
			return i + 1
		}
	}
	return 0
}

func score(ranks []int) Score {
	var s Score
	if len(ranks) == 0 {
		return s
	}
	for _, r := range ranks {
		switch {
		case r == 0:
			s.Miss++
		case r <= 3:
			s.Hit3++
			s.MRR += 1 / float64(r)
		default:
			s.MRR += 1 / float64(r)
		}
	}
	n := float64(len(ranks))
	s.MRR /= n
	s.Hit3 /= n
	return s
}
