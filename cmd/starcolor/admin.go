package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"starcolor/internal/admin"
	"starcolor/internal/cmdline"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
)

func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "create":
			return adminCreate(ctx, args[1:], stdout, stderr)
		case "token":
			return adminToken(ctx, args[1:], stdout, stderr)
		}
	}
	fs := newFlags("admin", "create NAME --role R[,R…] | token NAME | token --revoke ID",
		"Manages the operators of the back office (/admin) and of the operator API (/api/operator/v1).", stderr)
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fs.Usage()
		return nil
	}
	return cmdline.UsageError(fs, "want: admin create NAME --role R[,R…], admin token NAME, or admin token --revoke ID")
}

// parseNamed parses a command's flags given before and after its one NAME: its name.
func parseNamed(fs *flag.FlagSet, args []string) (string, error) {
	if err := cmdline.Parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() == 0 {
		return "", nil
	}
	name := fs.Arg(0)
	if err := cmdline.Parse(fs, fs.Args()[1:]); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		return "", cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	return name, nil
}

func adminCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("admin create", "[--db FILE|URL] NAME --role R[,R…]",
		fmt.Sprintf(`Creates an operator of the back office (served at /admin by starcolor serve), apart from the
players, with their roles (docs/spec/OPERATOR.md): one or more of %s. It asks for the
password (at least %d characters) twice on a terminal, without echo; otherwise it reads one
line from the standard input, for scripts.`, lottery.AllRoles, admin.MinPassword), stderr)
	db := dbFlag(fs)
	roleList := fs.String("role", "", "the operator's `roles`, comma-separated: "+lottery.AllRoles.String())
	name, err := parseNamed(fs, args)
	if err != nil {
		return err
	}
	if name == "" {
		return cmdline.UsageError(fs, "want the operator's NAME")
	}
	if *roleList == "" {
		return cmdline.UsageError(fs, "want the operator's roles: --role R[,R…], of %s", lottery.AllRoles)
	}
	roles, err := lottery.ParseRoles(*roleList)
	if err != nil {
		return cmdline.UsageError(fs, "--role: %v", err)
	}
	password, err := readPassword(os.Stdin, stderr, name)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := admin.CreateOperator(ctx, store, name, password, roles, passhash.Default, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "operator %s created, roles %s: log in at /admin of starcolor serve\n", name, roles)
	return nil
}

func adminToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("admin token", "[--db FILE|URL] NAME | --revoke ID",
		`Makes an API token for the operator NAME, for the operator API (/api/operator/v1, calls
sent with "Authorization: Bearer TOKEN"), and prints it once: it is kept hashed, and never
shown again. The token acts with the operator's roles. With --revoke, ends the token ID (the
number printed with it); a revoked token is refused at once, on every server.`, stderr)
	db := dbFlag(fs)
	revoke := fs.Int64("revoke", 0, "end the token of this `ID`")
	name, err := parseNamed(fs, args)
	if err != nil {
		return err
	}
	if (name == "") == (*revoke == 0) {
		return cmdline.UsageError(fs, "want the operator's NAME, or --revoke ID")
	}
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	if *revoke != 0 {
		if err := admin.RevokeToken(ctx, store, *revoke, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %d revoked\n", *revoke)
		return nil
	}
	token, id, err := admin.MakeToken(ctx, store, name, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "token %d for %s: shown once, keep it as a secret (revoke it with starcolor admin token --revoke %d)\n", id, name, id)
	fmt.Fprintln(stdout, token)
	return nil
}

// readPassword asks for a password twice without echo on a terminal, or reads one line otherwise.
func readPassword(in *os.File, prompt io.Writer, name string) (string, error) {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) {
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && !(errors.Is(err, io.EOF) && line != "") {
			return "", errors.New("no password on the standard input")
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fmt.Fprintf(prompt, "Password for %s: ", name)
	first, err := term.ReadPassword(fd)
	fmt.Fprintln(prompt)
	if err != nil {
		return "", err
	}
	fmt.Fprint(prompt, "Again: ")
	again, err := term.ReadPassword(fd)
	fmt.Fprintln(prompt)
	if err != nil {
		return "", err
	}
	if string(first) != string(again) {
		return "", errors.New("the two passwords differ")
	}
	return string(first), nil
}
