package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"starcolor/internal/admin"
	"starcolor/internal/cmdline"
	"starcolor/internal/passhash"
)

func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		fs := newFlags("admin", "create NAME", "Manages the operators of the back office (/admin).", stderr)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		return cmdline.UsageError(fs, "want: admin create NAME")
	}
	return adminCreate(ctx, args[1:], stdout, stderr)
}

func adminCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("admin create", "[--db FILE|URL] NAME",
		fmt.Sprintf(`Creates an operator of the back office (served at /admin by starcolor serve), apart from the
players. It asks for the password (at least %d characters) twice on a terminal, without echo;
otherwise it reads one line from the standard input, for scripts.`, admin.MinPassword), stderr)
	db := dbFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cmdline.UsageError(fs, "want the operator's NAME")
	}
	name := fs.Arg(0)
	if err := cmdline.Parse(fs, fs.Args()[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cmdline.UsageError(fs, "unexpected argument %q", fs.Arg(0))
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
	if err := admin.CreateOperator(ctx, store, name, password, passhash.Default, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "operator %s created: log in at /admin of starcolor serve\n", name)
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
