package httpapi

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
	"starcolor/internal/session"
	"starcolor/internal/store"
	"starcolor/internal/throttle"
)

// The operator API (docs/spec/OPERATOR.md), under /api/operator/v1, for the operator's scripts:
// each call is made with an operator's API token (Authorization: Bearer TOKEN) and allowed by
// the operator's roles only. Its errors are the player API's.

// OperatorStore is what the operator API reads and writes.
type OperatorStore interface {
	store.Operators
	store.Proposals
	store.Attempts
	store.Emissions
	store.Reports
	ImportRegister(ctx context.Context, persons []identity.Person, imp lottery.RegisterImport) (lottery.RegisterImport, error)
}

// OperatorConfig sets the operator API up.
type OperatorConfig struct {
	Store OperatorStore
	// Rate bounds the failed token checks of each client address, as the logins' rate bounds
	// logins (the zero Rate: no bound).
	Rate throttle.Rate
	Now  func() time.Time
	// SessionsEnded drops this server's copies of the sessions a register import ended.
	SessionsEnded func(playerIDs ...int64)
	// Definition is the game new emissions are proposed for: their prices, their blocks' units.
	Definition *gamedef.Definition
	// Approved starts making an approved creation at once, if none runs (the back office's
	// StartApproved); every server also does within a second. Nil: only that.
	Approved func(ctx context.Context) error
}

// operatorPrefix is where the operator API's calls are.
const operatorPrefix = "/api/operator/v1"

// EnableOperators serves the operator API.
func (s *Server) EnableOperators(c OperatorConfig) {
	if c.Now == nil {
		c.Now = time.Now
	}
	s.ops = &c
	s.handle("GET "+operatorPrefix+"/emissions", s.asOperator(lottery.Viewer, s.opEmissions))
	s.handle("POST "+operatorPrefix+"/emissions", s.asOperator(lottery.Emissions, s.opPropose))
	s.handle("POST "+operatorPrefix+"/emissions/{id}/suspend", s.asOperator(lottery.Emissions, s.opChangeStatus(lottery.Suspended)))
	s.handle("POST "+operatorPrefix+"/emissions/{id}/resume", s.asOperator(lottery.Emissions, s.opChangeStatus(lottery.OnSale)))
	s.handle("POST "+operatorPrefix+"/emissions/{id}/withdraw", s.asOperator(lottery.Emissions, s.opWithdraw))
	s.handle("GET "+operatorPrefix+"/proposals", s.asOperator(lottery.Viewer, s.opProposals))
	s.handle("POST "+operatorPrefix+"/proposals/{id}/approve", s.asOperator(lottery.Approver, s.opDecide(true)))
	s.handle("POST "+operatorPrefix+"/proposals/{id}/reject", s.asOperator(lottery.Approver, s.opDecide(false)))
	s.handle("GET "+operatorPrefix+"/log", s.asOperator(lottery.Viewer, s.opLog))
	s.handle("GET "+operatorPrefix+"/reports/daily", s.asOperator(lottery.Finance, s.opDaily))
	s.handleSized("PUT "+operatorPrefix+"/exclusions", maxRegister, s.asOperator(lottery.Compliance, s.opExclusions))
}

// operatorHandler is a call of the operator API, made by a known operator.
type operatorHandler func(w http.ResponseWriter, r *http.Request, o lottery.Operator) error

// asOperator lets a call through with a live token of an operator who holds role:
//   - no token, or one that is malformed, unknown, revoked or wrong: 401 not_logged_in, the
//     failure counted against the client's address (429 too_many_attempts past its rate);
//   - an operator without role: 403 forbidden.
func (s *Server) asOperator(role lottery.Role, h operatorHandler) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		o, err := s.operatorOf(r)
		if err != nil {
			return err
		}
		if !o.Roles.Has(role) {
			return fault.Errorf(fault.Forbidden, "this call needs the role %s; the operator %s has %s", role, o.Name, o.Roles)
		}
		return h(w, r, o)
	}
}

// operatorOf is the operator whose token the request carries.
func (s *Server) operatorOf(r *http.Request) (lottery.Operator, error) {
	ctx := r.Context()
	auth := r.Header.Values("Authorization")
	if len(auth) == 0 {
		return lottery.Operator{}, fault.Errorf(fault.NotLoggedIn, "no token: send Authorization: Bearer TOKEN (starcolor admin token NAME makes one)")
	}
	refuse := func() (lottery.Operator, error) {
		if err := s.tokenFailed(ctx, r); err != nil {
			return lottery.Operator{}, err
		}
		return lottery.Operator{}, fault.Errorf(fault.NotLoggedIn, "the token is not a live one: unknown, revoked or mistyped")
	}
	token, ok := strings.CutPrefix(auth[0], "Bearer ")
	if len(auth) > 1 || !ok {
		return refuse()
	}
	id, hash, ok := session.ParseAPIToken(token)
	if !ok {
		return refuse()
	}
	t, err := s.ops.Store.OperatorToken(ctx, id)
	if fault.Is(err, fault.NotFound) {
		return refuse()
	}
	if err != nil {
		return lottery.Operator{}, err
	}
	// The secret is compared whatever the token's state, so that a revoked token takes as long
	// to refuse as a wrong one.
	if match := session.APISecretMatches(t.SecretHash, hash); !match || !t.RevokedAt.IsZero() {
		return refuse()
	}
	o, err := s.ops.Store.OperatorByID(ctx, t.OperatorID)
	if fault.Is(err, fault.NotFound) || err == nil && o.Disabled {
		return refuse()
	}
	return o, err
}

// tokenFailed counts a failed token check against the client's address, within the rate: a
// fault.TooManyAttempts once it is spent.
func (s *Server) tokenFailed(ctx context.Context, r *http.Request) error {
	rate := s.ops.Rate
	if !rate.Limited() {
		return nil
	}
	wait, err := s.ops.Store.Throttle(ctx, "token:"+throttle.Address(r.RemoteAddr), func(tat int64) (int64, time.Duration) {
		return rate.Take(tat, s.ops.Now())
	})
	if err != nil {
		return err
	}
	if wait > 0 {
		wait = (wait + time.Second - 1).Truncate(time.Second)
		return fault.Retry(fault.TooManyAttempts, wait, "too many calls with a wrong token from your address: try again in %s", wait)
	}
	return nil
}

// onlyQuery refuses a query parameter the call does not take: a misspelt one is told, not
// ignored (as journalQuery does).
func onlyQuery(r *http.Request, names ...string) error {
	for name := range r.URL.Query() {
		if !slices.Contains(names, name) {
			return fault.Errorf(fault.Invalid, "the query parameter %q is not one this call takes", name)
		}
	}
	return nil
}

// noQuery refuses any query parameter.
func noQuery(r *http.Request) error { return onlyQuery(r) }

// queryInt reads an optional parameter, a whole number from 1 to max in decimal digits: def
// when absent.
func queryInt(r *http.Request, name string, def, max int64) (int64, error) {
	v, ok := r.URL.Query()[name]
	if !ok {
		return def, nil
	}
	n, ok := decimal(v[0])
	if !ok || n < 1 || n > max {
		return 0, fault.Errorf(fault.Invalid, "the query parameter %s is %q, not a whole number from 1 to %d", name, v[0], max)
	}
	return n, nil
}

// sortDays puts a report's days in order: by day, then by price.
func sortDays(days []opDay) {
	slices.SortFunc(days, func(a, b opDay) int {
		if c := strings.Compare(a.Date, b.Date); c != 0 {
			return c
		}
		return cmp.Compare(a.Price, b.Price)
	})
}
