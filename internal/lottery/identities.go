package lottery

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
)

// What the stores do with the comparison of names (internal/identity, docs/spec/API.md 1.2),
// the same on both. It is the keys they keep of a player, who may not sign up, and the keys
// made again when the comparison changes.

// Keys are what a store keeps of a player to find and compare them. NameKey finds a login's
// account; NameSkeleton, with NameTwin, is unique: no new name may read like one taken. An
// identity's LookupKey finds the persons it may be (identity.SamePerson), its IdentityKey says
// who it is as a reader sees them; both are empty without an identity.
type Keys struct {
	NameKey, NameSkeleton  string
	NameTwin               int
	IdentityKey, LookupKey string
}

// KeysOf are the keys of a new account. A player of the operator's wallet is found by their
// username as it is (WalletUsername): its "~" folds into no skeleton of a sign-up's, and no
// sign-up may take it.
func KeysOf(username string, wallet bool, p *identity.Person) Keys {
	k := Keys{NameKey: username, NameSkeleton: username}
	if !wallet {
		k.NameKey, k.NameSkeleton = identity.UsernameKey(username), identity.UsernameSkeleton(username)
	}
	if p != nil {
		k.IdentityKey, k.LookupKey = p.Key(), p.LookupKey()
	}
	return k
}

// refusedMessage is what a sign-up refused for who the person is hears, whatever the reason
// (docs/spec/API.md 1.2). The register of excluded persons is confidential, and the end of
// someone's exclusion is theirs to know.
const refusedMessage = "no account can be opened for this person; the operator's support can say more"

// RefuseRegistration is a sign-up refused for who the person is (fault.RegistrationRefused):
// one message for every reason, the reason kept as its Cause for the operator's logs.
func RefuseRegistration(reason string) error {
	return &fault.Error{Code: fault.RegistrationRefused, Message: refusedMessage, Cause: errors.New(reason)}
}

// Refusal says why a person may not open an account (RefuseRegistration), or nil if they may.
// It decides from what a store found under their LookupKey: the persons of the register of
// excluded persons, and the players whose self-exclusion runs.
func Refusal(p identity.Person, listed []identity.Person, excluded []Player) error {
	for _, l := range listed {
		if identity.SamePerson(p, l) {
			return RefuseRegistration("on the register of excluded persons")
		}
	}
	for _, e := range excluded {
		if e.Person != nil && identity.SamePerson(p, *e.Person) {
			return RefuseRegistration(fmt.Sprintf("the self-exclusion of player %d (%s) runs until %s",
				e.ID, e.Username, e.ExcludedUntil.UTC().Format(time.RFC3339)))
		}
	}
	return nil
}

// RegisterIndex is the register of excluded persons by LookupKey, to tell whom it lists.
type RegisterIndex map[string][]identity.Person

// IndexRegister indexes a register.
func IndexRegister(persons []identity.Person) RegisterIndex {
	r := RegisterIndex{}
	for _, p := range persons {
		r[p.LookupKey()] = append(r[p.LookupKey()], p)
	}
	return r
}

// Lists says whether the register lists a person (identity.SamePerson).
func (r RegisterIndex) Lists(p identity.Person) bool {
	for _, l := range r[p.LookupKey()] {
		if identity.SamePerson(p, l) {
			return true
		}
	}
	return false
}

// KeyedPlayer is a player as the recomputation of keys reads them, with the keys stored.
type KeyedPlayer struct {
	Player
	Wallet bool // a player of the operator's wallet (KeysOf)
	Keys   Keys
}

// RegisterEntry is a person of the register, with the import that listed them.
type RegisterEntry struct {
	Person   identity.Person
	ImportID int64
}

// Rekeying is what a store writes once the comparison of names has changed
// (identity.KeyScheme):
//
//   - the players whose keys change, with their new keys;
//   - the register, one entry per person (identity.Person.Key);
//   - what the operator must look at.
type Rekeying struct {
	Players    []KeyedPlayer
	Register   []RegisterEntry
	Collisions []OperatorAction
}

// systemName is the name the store's own lines in the operators' log go by.
const systemName = "starcolor"

// Rekey makes every key again under the comparison of today (identity.KeyScheme), from the
// players (in the order of their ids) and the register as stored, on the date of now.
//
// Accounts made before may now be alike, and nothing is closed for it: the operator decides.
//
//   - Usernames that read alike keep their accounts. The first (by id) keeps the skeleton, and
//     the others are its twins (NameTwin 1, 2 …). Each is still found by its own name at login
//     (identity.PickUsername), and no new one may take it.
//   - An open account whose identity now matches the running self-exclusion of another, or a
//     person of the register, stays open and is listed.
//
// A migration moves no money and cannot end the sessions a running server holds. The next
// import of the register closes listed accounts anyway. (The operator may import the current
// list again to close them at once.)
func Rekey(players []KeyedPlayer, register []RegisterEntry, now time.Time) Rekeying {
	var out Rekeying
	at := func(action, detail string) {
		out.Collisions = append(out.Collisions, OperatorAction{Name: systemName, Action: action, Detail: detail, CreatedAt: now})
	}
	twins := map[string][]KeyedPlayer{}
	var skeletons []string
	excluded := map[string][]KeyedPlayer{}
	for _, p := range players {
		k := KeysOf(p.Username, p.Wallet, p.Person)
		k.NameTwin = len(twins[k.NameSkeleton])
		if len(twins[k.NameSkeleton]) == 0 {
			skeletons = append(skeletons, k.NameSkeleton)
		}
		changed := k != p.Keys
		p.Keys = k
		if changed {
			out.Players = append(out.Players, p)
		}
		twins[k.NameSkeleton] = append(twins[k.NameSkeleton], p)
		if p.Person != nil && p.ExcludedUntil.After(now) {
			excluded[k.LookupKey] = append(excluded[k.LookupKey], p)
		}
	}
	for _, s := range skeletons {
		if ps := twins[s]; len(ps) > 1 {
			names := make([]string, len(ps))
			for i, p := range ps {
				names[i] = fmt.Sprintf("%d %q", p.ID, p.Username)
			}
			at("usernames_alike", fmt.Sprintf("the usernames of accounts %s read alike under the comparison of names of API.md 1.2: each still logs in with its own, and no new account may take one like them",
				strings.Join(names, ", ")))
		}
	}
	seen := map[string]bool{}
	var persons []identity.Person
	for _, e := range register {
		if k := e.Person.Key(); !seen[k] {
			seen[k] = true
			out.Register = append(out.Register, e)
			persons = append(persons, e.Person)
		}
	}
	listed := IndexRegister(persons)
	for _, p := range players {
		if p.Person == nil || !p.ClosedAt.IsZero() {
			continue
		}
		who := fmt.Sprintf("the open account %d %q (%s)", p.ID, p.Username, p.Person)
		if listed.Lists(*p.Person) {
			at("identity_listed", who+" matches a person on the register of excluded persons: it stays open until the next import of the register closes it (import the current list again to close it now)")
		}
		for _, e := range excluded[p.Person.LookupKey()] {
			if e.ID != p.ID && identity.SamePerson(*p.Person, *e.Person) {
				at("identity_excluded", fmt.Sprintf("%s matches the self-exclusion of account %d %q, which runs until %s: it stays open, for the operator to look into",
					who, e.ID, e.Username, e.ExcludedUntil.UTC().Format(time.RFC3339)))
			}
		}
	}
	return out
}

// OperatorNameTaken refuses a new operator's name that reads like one of names: the operators'
// log names who did what, and "aIice" (a capital i) must not pass for alice there. Names are
// compared by their skeletons both after case folding (identity.UsernameSkeleton: "ALICE" is
// alice) and before it (identity.CaseSkeleton: a capital I reads as an l). Operators are few:
// every name is compared.
func OperatorNameTaken(name string, names []string) error {
	mine := []string{identity.UsernameSkeleton(name), identity.CaseSkeleton(name)}
	for _, n := range names {
		for _, theirs := range []string{identity.UsernameSkeleton(n), identity.CaseSkeleton(n)} {
			if slices.Contains(mine, theirs) {
				return fault.Errorf(fault.UsernameTaken, "the operator %q already exists, or one whose name reads like it (%q)", name, n)
			}
		}
	}
	return nil
}
