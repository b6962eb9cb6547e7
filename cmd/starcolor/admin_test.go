package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// adminCLI runs starcolor as a real process (the test binary standing in for it, see TestMain)
// with stdin as its standard input: not a terminal, so the password is read as a line.
func adminCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "STARCOLOR_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errOut.String(), code}
}

func TestAdminCreate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ops.db")
	r := adminCLI(t, "a long enough password\n", "admin", "create", "--db", db, "olga")
	if r.code != 0 || !strings.Contains(r.stdout, "operator olga created") {
		t.Fatalf("admin create: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	store, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	o, err := store.OperatorByName(context.Background(), "OLGA")
	store.Close()
	if err != nil || !strings.HasPrefix(o.PasswordHash, "$argon2id$v=19$m=65536,") || strings.Contains(o.PasswordHash, "long enough") {
		t.Fatalf("stored operator %+v, %v: want an argon2id hash", o, err)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		says  string
	}{
		{"another long password\n", []string{"admin", "create", "--db", db, "Olga"}, 1, "already exists"},
		{"short\n", []string{"admin", "create", "--db", db, "pavel"}, 1, "10 to 256 characters"},
		{"1234567890\n", []string{"admin", "create", "--db", db, "pavel"}, 1, "most common"},
		{"", []string{"admin", "create", "--db", db, "pavel"}, 1, "no password"},
		{"a long enough password\n", []string{"admin", "create", "--db", db}, 2, "want the operator's NAME"},
		{"", []string{"admin", "delete", "x"}, 2, "admin create NAME"},
	} {
		r := adminCLI(t, tc.stdin, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tc.args, r.code, r.stderr, tc.code, tc.says)
		}
	}
}
