package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The positions file holds, for every term of each prose field, where it
// stands in each document holding it, in the order of the term's postings:
// the inverted twin of the forward file. A quoted phrase reads the
// positions of its terms, one read per term, and walks them beside the
// postings; its cost follows how often the words occur, not how many
// documents hold them all. The fields file keeps the length of each term's
// positions.
//
// A term's positions are, per posting: the length in bytes of the
// document's entry, then per place its segment and position as
// differences from the place before (the position counted from 0 when
// the segment changes). The file starts with posMagic.
const (
	posFileName = "casebook-positions.bin"
	posMagic    = "CBPS1\n"
)

var errPosFile = errors.New("search: damaged positions file")

// appendPosition encodes one place of a term in a document, in order: its
// segment as the difference from the place before (0 for the same one),
// and its position as the difference from the place before in the same
// segment (from 0 in a new one).
func appendPosition(b []byte, seg, pos int, prev *[2]int) []byte {
	b = binary.AppendUvarint(b, uint64(seg-prev[0]))
	if seg != prev[0] {
		*prev = [2]int{seg, 0}
	}
	b = binary.AppendUvarint(b, uint64(pos-prev[1]))
	prev[1] = pos
	return b
}

// posStream walks one term's positions beside its postings.
type posStream struct {
	post postingIter
	b    []byte
	ok   bool
}

// seek moves to the posting of rank and returns its places as
// segment<<32 | position, appended to out[:0]; false when the term is not
// in that document. Ranks must be asked for in increasing order.
func (s *posStream) seek(rank int32, out []uint64) ([]uint64, bool, error) {
	out = out[:0]
	for s.ok && s.post.rank < rank {
		n, k := binary.Uvarint(s.b)
		if k <= 0 || uint64(len(s.b)-k) < n {
			return out, false, errPosFile
		}
		s.b = s.b[k+int(n):]
		s.ok = s.post.next()
	}
	if !s.ok || s.post.rank != rank {
		return out, false, nil
	}
	n, k := binary.Uvarint(s.b)
	if k <= 0 || uint64(len(s.b)-k) < n {
		return out, false, errPosFile
	}
	e := s.b[k : k+int(n)]
	var seg, pos uint64
	for len(e) > 0 {
		ds, k1 := binary.Uvarint(e)
		if k1 <= 0 {
			return out, false, errPosFile
		}
		dp, k2 := binary.Uvarint(e[k1:])
		if k2 <= 0 {
			return out, false, errPosFile
		}
		e = e[k1+k2:]
		if ds != 0 {
			seg, pos = seg+ds, 0
		}
		pos += dp
		out = append(out, seg<<32|pos)
	}
	return out, true, nil
}

// positions is the positions file opened for reading. Like the forward
// file it is read, not mapped: a phrase reads its terms' positions whole.
type positions struct {
	f *os.File
}

func openPositions(dir string, size uint64) (*positions, error) {
	f, err := os.Open(filepath.Join(dir, posFileName))
	if err != nil {
		return nil, fmt.Errorf("search: positions file: %w", err)
	}
	st, err := f.Stat()
	magic := make([]byte, len(posMagic))
	if err == nil {
		_, err = f.ReadAt(magic, 0)
	}
	if err != nil || string(magic) != posMagic || uint64(st.Size()) != uint64(len(posMagic))+size {
		f.Close()
		return nil, errPosFile
	}
	return &positions{f: f}, nil
}

// stream starts the walk of term t of the prose field p, reading its
// positions into buf's storage (returned for reuse).
func (ps *positions) stream(p *postings, t int, buf []byte) (posStream, []byte, error) {
	from, to := p.posOff[t], p.posOff[t+1]
	if uint64(cap(buf)) < to-from {
		buf = make([]byte, to-from)
	}
	buf = buf[:to-from]
	if _, err := ps.f.ReadAt(buf, int64(len(posMagic))+int64(from)); err != nil {
		return posStream{}, buf, fmt.Errorf("search: positions file: %w", err)
	}
	s := posStream{post: p.iter(t), b: buf}
	s.ok = s.post.next()
	return s, buf, nil
}

func (ps *positions) close() error {
	if ps == nil {
		return nil
	}
	return ps.f.Close()
}
