package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"starcolor/internal/app"
)

// The control socket of a server over a SQLite file (app.ControlHandler): a Unix socket beside
// the file, which only its owner can open, through which a command run beside the server has
// the server do what only it can do at once.

// controlPath is where the control socket of the server of the database file db is.
func controlPath(db string) string { return db + "-control.sock" }

// maxSocketPath bounds a Unix socket's path on Linux (sun_path, 108 bytes with its NUL).
const maxSocketPath = 107

// listenControl opens the control socket of the server of db, which holds db's serve lock: a
// socket left by a server that died is replaced. Only the owner may connect (0600).
func listenControl(db string) (net.Listener, error) {
	path := controlPath(db)
	if abs, err := filepath.Abs(path); err == nil && len(abs) > maxSocketPath {
		return nil, fmt.Errorf("the control socket %s: a path longer than %d bytes", abs, maxSocketPath)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// importThroughServer sends the register in file to the server serving db, over its control
// socket, and prints what it imported as exclusions import does.
func importThroughServer(ctx context.Context, db, file string, stdout io.Writer) error {
	path := controlPath(db)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no control socket at %s: %w", path, err)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	client := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}}}
	req, err := http.NewRequestWithContext(ctx, "PUT", "http://server/exclusions?file="+url.QueryEscape(filepath.Base(file)), f)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/csv")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("the server's control socket %s: %w", path, err)
	}
	defer resp.Body.Close()
	var imp app.ControlImport
	if err := json.NewDecoder(resp.Body).Decode(&imp); err != nil {
		return fmt.Errorf("the server's control socket answered %s: %w", resp.Status, err)
	}
	if imp.Error != "" {
		return errors.New(imp.Error)
	}
	fmt.Fprintf(stdout, "imported %s through the server: %d persons listed (%d added, %d gone); %d accounts closed\n",
		filepath.Base(file), imp.Listed, imp.Added, imp.Gone, imp.Closed)
	for _, c := range imp.ClosedPlayers {
		fmt.Fprintf(stdout, "  closed %s: %d cents paid out\n", c.Username, c.PaidOut)
	}
	return nil
}
