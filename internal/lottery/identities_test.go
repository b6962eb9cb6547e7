package lottery

import (
	"strings"
	"testing"
	"time"

	"starcolor/internal/identity"
)

// Rekey makes the keys of today: names that read alike become twins of the first (by id), the
// register one entry per person, and every collision a line for the operator; made again on
// its own output, it changes nothing.
func TestRekey(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	born := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	bob := &identity.Person{LastName: "Durand", FirstNames: "Bob", BirthDate: born}
	players := []KeyedPlayer{
		{Player: Player{ID: 1, Username: "demo"}},
		{Player: Player{ID: 2, Username: "ｄｅｍｏ"}},
		{Player: Player{ID: 3, Username: "alice"}},
		{Player: Player{ID: 4, Username: "dеmo"}},
		{Player: Player{ID: 5, Username: "~0123abcd"}, Wallet: true},
		{Player: Player{ID: 6, Username: "bob", Person: bob, ExcludedUntil: now.Add(time.Hour)}},
		{Player: Player{ID: 7, Username: "bob2", Person: &identity.Person{LastName: "Durаnd", FirstNames: "Bob Marie", BirthDate: born}}},
		{Player: Player{ID: 8, Username: "bob3", Person: &identity.Person{LastName: "Durand", FirstNames: "Bob", BirthDate: born}, ClosedAt: now.Add(-time.Hour)}},
		{Player: Player{ID: 9, Username: "jeanne", Person: &identity.Person{LastName: "MARTIN", FirstNames: "Jeanne Claire", BirthDate: born}}},
	}
	register := []RegisterEntry{
		{Person: identity.Person{LastName: "Martin", FirstNames: "Jeanne", BirthDate: born}, ImportID: 3},
		{Person: identity.Person{LastName: "Mаrtin", FirstNames: "Jeanne", BirthDate: born}, ImportID: 3},       // the same, a Cyrillic а
		{Person: identity.Person{LastName: "Martin", FirstNames: "Jeanne Marie", BirthDate: born}, ImportID: 3}, // may be the same: kept
	}
	rk := Rekey(players, register, now)
	if len(rk.Players) != len(players) {
		t.Errorf("%d players rekeyed, want all %d (none had keys)", len(rk.Players), len(players))
	}
	twin := map[int64]int{}
	for _, p := range rk.Players {
		twin[p.ID] = p.Keys.NameTwin
	}
	if twin[1] != 0 || twin[2] != 1 || twin[4] != 2 || twin[3] != 0 || twin[5] != 0 {
		t.Errorf("twins %v", twin)
	}
	if k := rk.Players[4].Keys; k.NameKey != "~0123abcd" || k.NameSkeleton != "~0123abcd" {
		t.Errorf("a wallet player's keys: %+v", k)
	}
	if len(rk.Register) != 2 || rk.Register[0].Person.LastName != "Martin" || rk.Register[1].Person.FirstNames != "Jeanne Marie" {
		t.Errorf("the register: %+v", rk.Register)
	}
	var lines []string
	for _, c := range rk.Collisions {
		if c.Name != "starcolor" || !c.CreatedAt.Equal(now) {
			t.Errorf("a line %+v", c)
		}
		lines = append(lines, c.Action+": "+c.Detail)
	}
	for _, want := range []string{`usernames_alike: the usernames of accounts 1 "demo", 2 "ｄｅｍｏ", 4 "dеmo" read alike`,
		`identity_excluded: the open account 7 "bob2"`, `identity_listed: the open account 9 "jeanne"`} {
		found := 0
		for _, l := range lines {
			if strings.HasPrefix(l, want) {
				found++
			}
		}
		if found != 1 {
			t.Errorf("%d lines %q in %q", found, want, lines)
		}
	}
	if len(lines) != 3 {
		t.Errorf("lines %q: the closed account 8 and the excluded one itself are no collision", lines)
	}
	// Once made, the keys are made again the same.
	for i := range players {
		players[i].Keys = rk.Players[i].Keys // all changed, in order
	}
	if again := Rekey(players, rk.Register, now); len(again.Players) != 0 || len(again.Register) != 2 || len(again.Collisions) != 3 {
		t.Errorf("again: %d players rekeyed, %d persons, %d lines", len(again.Players), len(again.Register), len(again.Collisions))
	}
}

// A person is refused for a listed person or a running exclusion of theirs, however written, and
// the refusal says nothing of why; another person is not refused.
func TestRefusal(t *testing.T) {
	born := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	bob := identity.Person{LastName: "Durand", FirstNames: "Bob", BirthDate: born}
	alike := identity.Person{LastName: "Durаnd", FirstNames: "Boʙ Marie", BirthDate: born}
	excluded := []Player{{ID: 6, Username: "bob", Person: &bob, ExcludedUntil: born.AddDate(40, 0, 0)}}
	for _, c := range []struct {
		listed   []identity.Person
		excluded []Player
	}{{[]identity.Person{bob}, nil}, {nil, excluded}} {
		err := Refusal(alike, c.listed, c.excluded)
		if err == nil || strings.Contains(err.Error(), "register") || strings.Contains(err.Error(), "2030") {
			t.Errorf("%+v: %v", c, err)
		}
	}
	jean := identity.Person{LastName: "Durand", FirstNames: "Jean", BirthDate: born}
	if err := Refusal(jean, []identity.Person{bob}, excluded); err != nil {
		t.Errorf("another person: %v", err)
	}
}
