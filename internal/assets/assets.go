// Package assets serves the files a page links to (its scripts, style sheets and images),
// embedded in the binary and named by their checksum, so that a browser keeps each one for a
// year and fetches it again only once it has changed. The player's page (internal/web) and the
// back office (internal/admin) each serve a set of their own through it.
//
// A file's address carries its version: /static/app.css?v=<checksum>. That address is cached
// as immutable; the same name with another version (a page older than the binary) is served
// too, but revalidated, so that an old page still gets a working file and no browser keeps it.
// Scripts that import others (ES modules) name them by such addresses too (modules.go).
package assets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
)

// File is one file ready to serve.
type File struct {
	Name string // its name in its set, "app.css"
	Type string // its Content-Type
	// ETag is its version: the first 8 bytes of its SHA-256 in hex, in its address and its ETag.
	ETag string
	Raw  []byte
	Gzip []byte // Raw compressed, or nil where compressing would not make it smaller
}

// NewFile makes a file of data, its type told by its name's extension.
func NewFile(name string, data []byte) *File {
	sum := sha256.Sum256(data)
	f := &File{Name: name, Raw: data, ETag: hex.EncodeToString(sum[:8])}
	f.Type = mime.TypeByExtension(path.Ext(name))
	if f.Type == "" {
		f.Type = "application/octet-stream"
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(data)
	w.Close()
	if gz.Len() < len(data) {
		f.Gzip = gz.Bytes()
	}
	return f
}

// Set is the files served under one prefix of addresses.
type Set struct {
	prefix string
	files  map[string]*File
}

// New makes the set of files (by name) served under prefix, "/static/". Each script's imports
// are rewritten to the addresses of the modules they name (modules.go); a set whose scripts
// import what it does not hold, or import each other in a circle, is refused.
func New(prefix string, files map[string][]byte) (*Set, error) {
	s := &Set{prefix: prefix, files: map[string]*File{}}
	if err := s.addModules(files); err != nil {
		return nil, err
	}
	for name, data := range files {
		if s.files[name] == nil {
			s.files[name] = NewFile(name, data)
		}
	}
	return s, nil
}

// Dir reads the files of one folder of fsys (not those of its subfolders), by name.
func Dir(fsys fs.FS, dir string) (map[string][]byte, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = data
	}
	return out, nil
}

// URL is the address of a file of the set, with its version. It fails for a name the set does
// not hold, so that a template naming a file that is not there fails at start-up.
func (s *Set) URL(name string) (string, error) {
	f, ok := s.files[name]
	if !ok {
		return "", fmt.Errorf("assets: no file %q", name)
	}
	return s.prefix + f.Name + "?v=" + f.ETag, nil
}

// File is a file of the set, by name.
func (s *Set) File(name string) (*File, bool) {
	f, ok := s.files[name]
	return f, ok
}

// Names are the names of the set's files, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.files))
	for n := range s.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Weight is the number of bytes of all the set's files, uncompressed.
func (s *Set) Weight() int {
	n := 0
	for _, f := range s.files {
		n += len(f.Raw)
	}
	return n
}

// ServeHTTP serves the file the address names under the set's prefix, 404 for any other.
func (s *Set) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := s.files[strings.TrimPrefix(r.URL.Path, s.prefix)]
	if !ok || !strings.HasPrefix(r.URL.Path, s.prefix) {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	if r.URL.Query().Get("v") == f.ETag {
		// The address names the content: it never changes.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	Serve(w, r, f)
}

// Serve writes a file with its type and ETag, answering 304 to a browser that has it already,
// and gzip-compressed to a browser that accepts it. The caller sets Cache-Control.
func Serve(w http.ResponseWriter, r *http.Request, f *File) {
	h := w.Header()
	etag := `"` + f.ETag + `"`
	h.Set("ETag", etag)
	h.Set("Content-Type", f.Type)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.Raw
	if f.Gzip != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = f.Gzip
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
