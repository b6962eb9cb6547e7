package game

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/passhash"
	"starcolor/internal/sqlite"
	"starcolor/internal/storetest"
)

// A sign-up refused for who the person is tells the client one message, and the operator's log
// why, with the username tried (docs/spec/API.md 1.2): a self-exclusion, or the register, whether the
// name was written in the Latin script or not.
func TestRegistrationRefusedLogsWhy(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "test.db"), storetest.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logs bytes.Buffer
	cfg := DefaultConfig
	cfg.Argon2 = passhash.Argon2{Time: 1, Memory: 1024, Threads: 1}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := New(db, cfg, func() time.Time { return now }, slog.New(slog.NewJSONHandler(&logs, nil)))
	reg := func(name, last, first string) error {
		_, err := s.Register(ctx, Registration{Username: name, Password: "secret-" + name, LastName: last, FirstNames: first, BirthDate: "1990-01-01"}, "127.0.0.1")
		return err
	}
	if err := reg("bob", "Durand", "Bob"); err != nil {
		t.Fatal(err)
	}
	bob, _ := db.PlayerByName(ctx, "bob")
	if _, _, err := s.Exclude(ctx, Player{ID: bob.ID}, 30); err != nil {
		t.Fatal(err)
	}
	listed := identity.Person{LastName: "Martin", FirstNames: "Jeanne", BirthDate: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := db.ImportRegister(ctx, []identity.Person{listed}, lottery.RegisterImport{At: now, By: "olga", Source: "r.csv"}); err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, c := range []struct{ name, last, first, why string }{
		{"bobby", "Durand", "Boʙ", `"reason":"the self-exclusion of player`},
		{"bobcyr", "Durаnd", "Bob", `"reason":"the self-exclusion of player`}, // another script: 400, unless it reads as an excluded person
		{"jeanne", "MARTIN", "Jeanne Claire", `"reason":"on the register of excluded persons"`},
	} {
		logs.Reset()
		err := reg(c.name, c.last, c.first)
		if !fault.Is(err, fault.RegistrationRefused) {
			t.Fatalf("%s: %v", c.name, err)
		}
		messages = append(messages, err.Error())
		line := logs.String()
		if !strings.Contains(line, `"username":"`+c.name+`"`) || !strings.Contains(line, c.why) {
			t.Errorf("%s: logged %s", c.name, line)
		}
	}
	if messages[0] != messages[1] || messages[1] != messages[2] || strings.Contains(messages[0], "register") || strings.Contains(messages[0], "exclu") {
		t.Errorf("the refusals tell apart their reasons: %q", messages)
	}
	if err := reg("ivan", "Иванов", "Иван"); !fault.Is(err, fault.InvalidIdentity) {
		t.Errorf("a name in Cyrillic, of nobody excluded: %v", err)
	}
}
