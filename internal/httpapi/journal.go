package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"golang.org/x/mod/sumdb/tlog"

	"starcolor/internal/fault"
	"starcolor/internal/journal"
)

// The journal's calls (docs/spec/API.md 1.2, « The journal »): public, with no session, naming
// no person. They serve only what the latest checkpoint signs, so that a reader can check every
// answer against a checkpoint.

// Journal is what the journal's calls read (journal.Log).
type Journal interface {
	Checkpoint(ctx context.Context) (journal.Checkpoint, error)
	Entries(ctx context.Context, start, end int64) ([][]byte, error)
	InclusionProof(ctx context.Context, index, size int64) (tlog.RecordProof, error)
	ConsistencyProof(ctx context.Context, old, new int64) (tlog.TreeProof, error)
}

// The journal's answers are cached as long as they stay true.
const (
	// cacheImmutable is for entries and proofs within a checkpoint: the tree of a signed size
	// never changes, so a cache may keep them for a year.
	cacheImmutable = "public, max-age=31536000, immutable"
	// cacheKey is for the verifier key: a journal has one key (journal.ErrOtherKey), but an hour
	// lets a key file restored by mistake show soon.
	cacheKey = "public, max-age=3600"
	// cacheLatest is for the latest checkpoint: a new one is signed every second or so while the
	// journal grows, and a client that polls wants the newest.
	cacheLatest = "no-store"
)

// EnableJournal serves the journal's calls from j; verifierKey is the note verifier key its
// checkpoints are signed for.
func (s *Server) EnableJournal(j Journal, verifierKey string) {
	s.journal, s.journalKey = j, verifierKey
	s.handle("GET /api/v1/journal/checkpoint", s.journalCheckpoint)
	s.handle("GET /api/v1/journal/key", s.journalVerifier)
	s.handle("GET /api/v1/journal/entries", s.journalEntries)
	s.handle("GET /api/v1/journal/proof", s.journalProof)
	s.handle("GET /api/v1/journal/consistency", s.journalConsistency)
}

func (s *Server) journalCheckpoint(w http.ResponseWriter, r *http.Request) error {
	if _, err := journalQuery(r); err != nil {
		return err
	}
	c, err := s.journal.Checkpoint(r.Context())
	if err != nil {
		return err
	}
	writeAnswer(w, http.StatusOK, "text/plain; charset=utf-8", cacheLatest, c.Note)
	return nil
}

// journalVerifier serves the verifier key without a newline: the text is the key, as
// note.NewVerifier and `journal verify --key` take it.
func (s *Server) journalVerifier(w http.ResponseWriter, r *http.Request) error {
	if _, err := journalQuery(r); err != nil {
		return err
	}
	writeAnswer(w, http.StatusOK, "text/plain; charset=utf-8", cacheKey, []byte(s.journalKey))
	return nil
}

// journalEntries serves entries start to end-1, each its exact bytes and a newline.
func (s *Server) journalEntries(w http.ResponseWriter, r *http.Request) error {
	q, err := journalQuery(r, "start", "end")
	if err != nil {
		return err
	}
	entries, err := s.journal.Entries(r.Context(), q["start"], q["end"])
	if err != nil {
		return err
	}
	n := 0
	for _, e := range entries {
		n += len(e) + 1
	}
	body := make([]byte, 0, n)
	for _, e := range entries {
		body = append(append(body, e...), '\n')
	}
	writeAnswer(w, http.StatusOK, "application/x-ndjson", cacheImmutable, body)
	return nil
}

type inclusionJSON struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Path  []string `json:"path"`
}

func (s *Server) journalProof(w http.ResponseWriter, r *http.Request) error {
	q, err := journalQuery(r, "index", "size")
	if err != nil {
		return err
	}
	p, err := s.journal.InclusionProof(r.Context(), q["index"], q["size"])
	if err != nil {
		return err
	}
	return writeJournalJSON(w, inclusionJSON{Index: q["index"], Size: q["size"], Path: hexPath(p)})
}

type consistencyJSON struct {
	Old  int64    `json:"old"`
	New  int64    `json:"new"`
	Path []string `json:"path"`
}

func (s *Server) journalConsistency(w http.ResponseWriter, r *http.Request) error {
	q, err := journalQuery(r, "old", "new")
	if err != nil {
		return err
	}
	p, err := s.journal.ConsistencyProof(r.Context(), q["old"], q["new"])
	if err != nil {
		return err
	}
	return writeJournalJSON(w, consistencyJSON{Old: q["old"], New: q["new"], Path: hexPath(p)})
}

// writeJournalJSON writes a proof, which stays true for good: its sizes are within a checkpoint.
func writeJournalJSON(w http.ResponseWriter, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	writeAnswer(w, http.StatusOK, "application/json", cacheImmutable, body)
	return nil
}

// hexPath writes a proof's hashes in hexadecimal, [] for none.
func hexPath(hs []tlog.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = hexOf(h[:])
	}
	return out
}

// maxDigits bounds a size: int64 has 19 digits.
const maxDigits = 19

// journalQuery reads the query parameters a journal call takes, every one required: a count or
// an index, in decimal digits only (no sign, no space), within int64. A parameter the call does
// not take is refused too: a client that misspells one learns it rather than getting another
// answer than it asked for.
func journalQuery(r *http.Request, names ...string) (map[string]int64, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, fault.Errorf(fault.InvalidRequest, "the query string cannot be read: %v", err)
	}
	out := make(map[string]int64, len(names))
	for _, name := range names {
		v, ok := q[name]
		if !ok {
			return nil, fault.Errorf(fault.Invalid, "the query parameter %s is required", name)
		}
		n, ok := decimal(v[0])
		if !ok {
			return nil, fault.Errorf(fault.Invalid, "the query parameter %s is %q, not a number of 0 or more in decimal digits", name, v[0])
		}
		out[name] = n
	}
	for name := range q {
		if _, ok := out[name]; !ok {
			return nil, fault.Errorf(fault.Invalid, "the query parameter %q is not one this call takes", name)
		}
	}
	return out, nil
}

// decimal reads a number of 0 or more written in decimal digits only, as strconv.ParseInt
// would read it without its sign.
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > maxDigits {
		return 0, false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
