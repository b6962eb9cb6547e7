package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"starcolor/internal/app"
	"starcolor/internal/lottery"
	"starcolor/internal/session"
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
	r := adminCLI(t, "a long enough password\n", "admin", "create", "--db", db, "olga", "--role", "viewer,approver")
	if r.code != 0 || !strings.Contains(r.stdout, "operator olga created, roles viewer,approver") {
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
	if want := lottery.Roles(lottery.Viewer) | lottery.Roles(lottery.Approver); o.Roles != want {
		t.Fatalf("stored roles %v, want %v", o.Roles, want)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		says  string
	}{
		{"another long password\n", []string{"admin", "create", "--db", db, "Olga", "--role", "viewer"}, 1, "already exists"},
		{"short\n", []string{"admin", "create", "--db", db, "--role", "viewer", "pavel"}, 1, "10 to 256 characters"},
		{"1234567890\n", []string{"admin", "create", "--db", db, "pavel", "--role", "viewer"}, 1, "most common"},
		{"", []string{"admin", "create", "--db", db, "pavel", "--role", "viewer"}, 1, "no password"},
		{"a long enough password\n", []string{"admin", "create", "--db", db, "--role", "viewer"}, 2, "want the operator's NAME"},
		{"a long enough password\n", []string{"admin", "create", "--db", db, "pavel"}, 2, "want the operator's roles"},
		{"a long enough password\n", []string{"admin", "create", "--db", db, "pavel", "--role", "viewer,root"}, 2, `"root" is not a role`},
		{"a long enough password\n", []string{"admin", "create", "--db", db, "pavel", "--role", "Viewer"}, 2, "is not a role"},
		{"a long enough password\n", []string{"admin", "create", "--db", db, "pavel", "--role", "viewer,viewer"}, 2, "given twice"},
		{"a long enough password\n", []string{"admin", "create", "--db", db, "pavel", "--role", ""}, 2, "want the operator's roles"},
		{"", []string{"admin", "delete", "x"}, 2, "admin create NAME"},
	} {
		r := adminCLI(t, tc.stdin, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tc.args, r.code, r.stderr, tc.code, tc.says)
		}
	}
	if _, err := openStoreMust(t, db).OperatorByName(context.Background(), "pavel"); err == nil {
		t.Error("a refused admin create made the operator")
	}
}

func openStoreMust(t *testing.T, db string) app.Store {
	t.Helper()
	s, err := openStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAdminToken makes a token, which works once printed; revokes it by the id it was printed
// with; refuses what is not a token's operator or id.
func TestAdminToken(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ops.db")
	if r := adminCLI(t, "a long enough password\n", "admin", "create", "--db", db, "olga", "--role", "viewer"); r.code != 0 {
		t.Fatalf("admin create: %+v", r)
	}
	r := adminCLI(t, "", "admin", "token", "--db", db, "olga")
	token := strings.TrimSpace(r.stdout)
	id, _, ok := session.ParseAPIToken(token)
	if r.code != 0 || !ok || !strings.Contains(r.stderr, "shown once") || !strings.Contains(r.stderr, "--revoke "+strconv.FormatInt(id, 10)) {
		t.Fatalf("admin token: %+v", r)
	}
	s := openStoreMust(t, db)
	kept, err := s.OperatorToken(context.Background(), id)
	if _, hash, _ := session.ParseAPIToken(token); err != nil || kept.SecretHash != hash || !kept.RevokedAt.IsZero() {
		t.Fatalf("the token kept: %+v, %v", kept, err)
	}
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"admin", "token", "--db", db}, 2, "want the operator's NAME, or --revoke ID"},
		{[]string{"admin", "token", "--db", db, "olga", "--revoke", "1"}, 2, "want the operator's NAME, or --revoke ID"},
		{[]string{"admin", "token", "--db", db, "nobody"}, 1, "no such operator"},
		{[]string{"admin", "token", "--db", db, "--revoke", "99"}, 1, "no token 99"},
		{[]string{"admin", "token", "--db", db, "--revoke", strconv.FormatInt(id, 10)}, 0, ""},
		{[]string{"admin", "token", "--db", db, "--revoke", strconv.FormatInt(id, 10)}, 1, "revoked already"},
	} {
		r := adminCLI(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tc.args, r.code, r.stderr, tc.code, tc.says)
		}
	}
	if kept, err := s.OperatorToken(context.Background(), id); err != nil || kept.RevokedAt.IsZero() {
		t.Errorf("the token after --revoke: %+v, %v", kept, err)
	}
}
