// Package fakewallettest runs the reference wallet as the command integrators run,
// starcolor-fakewallet, in a process of its own, for the tests of the commands that talk to it
// (cmd/starcolor's wallet-mode tests, cmd/starcolor-fakewallet's own). The command is built once
// per test binary, so that `go test ./...` from a clean checkout needs no step before. It is
// never linked into a binary.
package fakewallettest

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pkg is the command's import path: go build finds it from any folder of the module.
const pkg = "starcolor/cmd/starcolor-fakewallet"

// built is the command built into a folder of its own, once per test binary.
var built = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "starcolor-fakewallet-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "starcolor-fakewallet")
	// go test puts its own go first on the PATH of the tests it runs.
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", errors.New("building " + pkg + ": " + err.Error() + "\n" + string(out))
	}
	return bin, nil
})

// Binary is the path of the command, built on first use.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Remove deletes the command built, if it was; a TestMain calls it once the tests have run.
func Remove() {
	if bin, err := built(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
}

// Wallet is the reference wallet running as a process of its own.
type Wallet struct {
	Cmd        *exec.Cmd
	URL        string // its base URL, http://127.0.0.1:PORT
	DB         string // its SQLite file
	Secret     []byte
	SecretFile string
	logs       string
}

// Logs is what the wallet has written on its standard error so far: its log.
func (w *Wallet) Logs() string {
	b, _ := os.ReadFile(w.logs)
	return string(b)
}

// Start starts the wallet on a new file with a secret (written with a trailing newline, as an
// operator's editor would) and more flags, on a port of the system's choosing; it is killed when
// the test ends.
func Start(t testing.TB, secret []byte, flags ...string) *Wallet {
	t.Helper()
	dir := t.TempDir()
	w := &Wallet{DB: filepath.Join(dir, "wallet.db"), SecretFile: filepath.Join(dir, "secret"), Secret: secret,
		logs: filepath.Join(dir, "wallet.log")}
	if err := os.WriteFile(w.SecretFile, append(secret, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	w.start(t, "127.0.0.1:0", flags)
	return w
}

// Restart kills the wallet, as a crash would, and starts it again on the same file and address
// with flags in place of those it had: a wallet that comes back, its faults gone or changed.
func (w *Wallet) Restart(t testing.TB, flags ...string) {
	t.Helper()
	w.Cmd.Process.Kill()
	w.Cmd.Wait()
	w.start(t, strings.TrimPrefix(w.URL, "http://"), flags)
}

// start starts the wallet's process on addr, and waits until it serves.
func (w *Wallet) start(t testing.TB, addr string, flags []string) {
	t.Helper()
	logs, err := os.OpenFile(w.logs, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close() // the process has its own descriptor
	cmd := exec.Command(Binary(t), append([]string{"--addr", addr, "--secret-file", w.SecretFile, "--db", w.DB}, flags...)...)
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Cmd = cmd
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if _, url, ok := strings.Cut(lines.Text(), "served at "); ok {
				ready <- url
			}
		}
	}()
	select {
	case w.URL = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("the fake wallet did not start: %s", w.Logs())
	}
}

// Result is what a run of the command printed, and its exit code.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs the command once, to its end: books, transactions, or a command line to refuse.
func Run(t testing.TB, args ...string) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(Binary(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return Result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}
