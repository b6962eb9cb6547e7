// Package store declares, once, what Star Color asks of a store: small role interfaces, one per
// concern (players, sessions, logins, sales, games, emissions, …), and Store, their union.
// internal/sqlite and internal/postgres implement Store, and internal/storetest checks that they
// keep it. Each consumer composes the roles it needs: the game server, the back office, the API,
// sessions, the login guard, the wallet's outbox, the wiring in internal/app.
//
// It imports only the domain (lottery, emission, identity, journal), so that the stores and
// their consumers can all see it. Every method is one transaction of its own, and a store turns
// its own errors into faults (internal/fault) before they cross this boundary.
package store

import (
	"context"
	"io"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/identity"
	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

// Store is a whole store, as `starcolor` opens one: every role, and Close.
type Store interface {
	Players
	Sessions
	Logins
	Sales
	Games
	Emissions
	Operators
	Proposals
	PlayerActions
	Jobs
	Reports
	Register
	Limits
	Demo
	Outbox
	WalletSales
	WalletBooks
	Launches
	Health
	Journal
	JournalCheck
	io.Closer
}

// Players is the players and their accounts.
type Players interface {
	// CreatePlayer registers a player with an empty account. A name that reads like one taken
	// (identity.UsernameSkeleton, unique in the table) is fault.UsernameTaken. A person who may
	// not open an account (self-excluded, on the register, or alike: lottery.Refusal) is
	// fault.RegistrationRefused.
	CreatePlayer(ctx context.Context, username, passwordHash string, person *identity.Person, now time.Time) (lottery.Player, error)
	// CheckIdentity says whether a person may open an account (fault.RegistrationRefused if
	// not, as CreatePlayer would), without opening one. It serves a sign-up refused for another
	// reason, which must still be refused for who it reads as.
	CheckIdentity(ctx context.Context, p identity.Person, now time.Time) error
	// ExcludePlayer excludes a player until a time, or later if they already are: an exclusion
	// is never shortened. Its one write holds:
	//
	//   - the session checked (nil: not checked);
	//   - the whole balance paid out to the bank (a withdrawal marked lottery.PaidAtExclusion);
	//   - the exclusion;
	//   - every session of the player ended.
	//
	// No money reaches the account afterwards. It returns the end of the exclusion in force and
	// what was paid.
	ExcludePlayer(ctx context.Context, playerID int64, session []byte, until, now time.Time) (time.Time, int64, error)
	// ClosePlayer closes a player's account. Its one write holds:
	//
	//   - the session checked (nil: not checked);
	//   - the whole balance paid out to the bank (a withdrawal marked lottery.PaidAtClosure);
	//   - the account closed;
	//   - every session of the player ended.
	//
	// It returns what was paid.
	ClosePlayer(ctx context.Context, playerID int64, session []byte, now time.Time) (int64, error)
	// ChangePassword sets a player's password hash. Its one write holds:
	//
	//   - the session checked (nil: not checked);
	//   - the account required open;
	//   - the hash replaced;
	//   - every session of the player ended;
	//   - fresh, the session the change opens in their place, created.
	//
	// A password that may have leaked stops serving every device that used it, while the device
	// that changed it stays in.
	ChangePassword(ctx context.Context, playerID int64, session []byte, passwordHash string, fresh lottery.Session) error
	// PlayerByName finds a player by username, compared by identity.UsernameKey: case and
	// widths do not matter, in any alphabet. Of the accounts made before RFC 8265 that came to
	// share a key, it finds the one of that name (identity.PickUsername).
	PlayerByName(ctx context.Context, username string) (lottery.Player, error)
	// PlayerByID finds a player by id.
	PlayerByID(ctx context.Context, id int64) (lottery.Player, error)
	// FindPlayers lists up to limit players whose name starts with prefix (case does not
	// matter), in name order.
	FindPlayers(ctx context.Context, start string, limit int) ([]lottery.Player, error)
	// PlayerTotals sums a player's games (through the games' player index).
	PlayerTotals(ctx context.Context, playerID int64) (lottery.PlayerTotals, error)
	// PlayerTransfers lists a player's transfers into or out of their account before a
	// transfer id (0: from the latest), newest first: a page of them. It reads about three
	// times limit rows, however long the ledger.
	PlayerTransfers(ctx context.Context, p lottery.Player, limit int, before int64) ([]lottery.Transfer, error)
}

// Sessions is the logged-in sessions of players and operators (internal/session).
type Sessions interface {
	// CreateSession starts a session. A player's is refused, in its write, if their account is
	// shut when it is made (closed, or self-excluded: lottery.Player.Shut's fault). So a login
	// that checked the account before an exclusion committed, and opens its session after, gets
	// no session. Nor does one whose password changed since it was checked
	// (lottery.Session.StillChecked).
	CreateSession(ctx context.Context, s lottery.Session) error
	// Session finds a session by its token's hash; none is fault.NotLoggedIn.
	Session(ctx context.Context, hash []byte) (lottery.Session, error)
	// TouchSession records activity on a session.
	TouchSession(ctx context.Context, hash []byte, now time.Time) error
	// DeleteSession ends a session.
	DeleteSession(ctx context.Context, hash []byte) error
	// DeleteExpiredSessions removes the sessions of a kind idle since before idleBefore or
	// created before createdBefore.
	DeleteExpiredSessions(ctx context.Context, kind string, idleBefore, createdBefore time.Time) error
}

// Attempts is what the login guard (internal/login) counts: failed logins and each address's
// requests, each read, decided and written in one step.
type Attempts interface {
	// ReserveLogin counts a login attempt for subject (a kind of account and a name) from
	// address before its password is checked:
	//
	//  1. It reads what is counted there.
	//  2. reserve decides (the rule is internal/login's).
	//  3. It writes what reserve returns, unless reserve says the attempt must wait.
	//
	// The read and the write are one write of the store, so attempts sent at once are counted
	// one after the other.
	ReserveLogin(ctx context.Context, subject, address string,
		reserve func(lottery.LoginFailures) (lottery.LoginFailures, time.Duration)) (time.Duration, error)
	// Throttle takes one request of a key (an address's logins and sign-ups) against the state
	// kept for it, tat (0 for a new key). take decides (the rule is internal/throttle's). It
	// returns the state to keep, or how long the request must wait, which leaves the state as
	// it was.
	Throttle(ctx context.Context, key string, take func(tat int64) (next int64, wait time.Duration)) (time.Duration, error)
}

// Logins is the failed logins: what the guard counts (Attempts), and what is cleared, swept and
// shown of them.
type Logins interface {
	Attempts
	// ClearLogin forgets the failures of subject from address: it has just logged in there.
	ClearLogin(ctx context.Context, subject, address string) error
	// ForgetLogins deletes the counts of failed logins quiet since before a time and no longer
	// locked. It deletes the throttles' states older than that too: their keys have all their
	// requests again. It returns how many rows it deleted.
	ForgetLogins(ctx context.Context, before time.Time) (int64, error)
	// LoginFailures is what the failed logins of a subject stand at: the failures counted at
	// every address, and how many addresses are locked out now.
	LoginFailures(ctx context.Context, subject string, now time.Time) (failures, lockedAddresses int, err error)
}

// Sales is what moves a player's money, each under an Idempotency-Key whose answer is kept with
// it (docs/spec/API.md), and the sweep of those keys.
type Sales interface {
	// Sell sells the next unsold unit at the request's price to the player. It returns the
	// game once it is durably committed: the stake debited, the prize credited, the game and
	// the answer under the key written, all or nothing. A key the player has already used fails
	// with lottery.ErrKeyTaken and changes nothing.
	Sell(ctx context.Context, r lottery.SaleRequest, now time.Time) (lottery.Game, error)
	// Pay makes a deposit or a withdrawal: its transfer, and the answer kept under its key, in
	// one write. A deposit to an account closed or self-excluded is refused
	// (lottery.Player.Shut's fault), session or not: its balance has been paid out, and no money
	// may reach it again. Each of these fails and changes nothing:
	//
	//   - a deposit past the player's weekly deposit limit: fault.LimitReached;
	//   - a deposit before they set one: fault.LimitsRequired;
	//   - too little money: fault.InsufficientFunds;
	//   - a key already used: lottery.ErrKeyTaken;
	//   - an ended session: lottery.ErrSessionEnded.
	Pay(ctx context.Context, p lottery.Payment, now time.Time) (lottery.Answer, error)
	// KeptAnswer finds the answer kept under a player's key.
	KeptAnswer(ctx context.Context, playerID int64, key string) (lottery.KeptAnswer, bool, error)
	// OldKeys reads up to limit keys in key order after the key after (the zero KeyRef: from
	// the first). It returns those answered before a time, and the last key read. done tells
	// that the table has no key after those.
	OldKeys(ctx context.Context, after lottery.KeyRef, limit int, before time.Time) (old []lottery.KeyRef, last lottery.KeyRef, done bool, err error)
	// ForgetKeys deletes keys by their primary key and returns how many it deleted. (Keys are
	// never changed, so a key that OldKeys found old is still the same old key.)
	ForgetKeys(ctx context.Context, keys []lottery.KeyRef) (int64, error)
}

// Games is the games sold and their moves.
type Games interface {
	// Game reads a game of a player; another player's game is not found.
	Game(ctx context.Context, playerID, id int64) (lottery.Game, error)
	// Games lists a player's games, newest first, before a game id (0: from the newest).
	Games(ctx context.Context, playerID int64, limit int, before int64) ([]lottery.Game, error)
	// GameByID reads a game, whoever's it is (the back office finds games by their number).
	GameByID(ctx context.Context, id int64) (lottery.Game, error)
	// SaveMoves writes a game's new moves if it still stands as they were read
	// (lottery.ErrMoved otherwise) and its session is still open.
	SaveMoves(ctx context.Context, u lottery.MoveUpdate, now time.Time) error
	// Abandoned lists games left unfinished since before a time, oldest first.
	Abandoned(ctx context.Context, before time.Time, limit int) ([]lottery.Game, error)
	// SoldUnits hands fn the unit and prize of every game whose id is below below, block after
	// block, each block's units in order, streaming; an error of fn stops it and is returned.
	SoldUnits(ctx context.Context, below int64, fn func(lottery.Game) error) error
}

// Emissions is the emissions, their blocks and the pages of their units.
type Emissions interface {
	emission.Pages
	// Emissions lists every emission with its blocks, oldest first.
	Emissions(ctx context.Context) ([]*emission.Emission, error)
	// Emission returns one emission with its blocks.
	Emission(ctx context.Context, id string) (*emission.Emission, error)
	// CreateEmission stores a new emission in one transaction: its row, every page that build
	// hands to put, then its blocks with their roots, and its entry in the journal, made by by
	// (an operator's name, lottery.ByCommandLine or lottery.ByServer). If build fails, the
	// context ends or the process dies before the commit, nothing of the emission remains.
	CreateEmission(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
		build func(put func(emission.Page) error) ([]emission.Block, error)) error
	// CreateEmissionStaged creates an emission as CreateEmission does, while the game sells:
	// sales pause only for the short copy of its units, if at all.
	CreateEmissionStaged(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte, by string,
		build func(put func(emission.Page) error) ([]emission.Block, error)) error
	// OpenEmissionPrices lists the prices at which some block still has units to sell, its
	// emission neither suspended nor withdrawn.
	OpenEmissionPrices(ctx context.Context) (map[int64]bool, error)
	// ChangeEmissionStatus suspends or resumes an emission (lottery.CheckChange), at once for
	// every server's sales, in one write with its history, its line in the operators' log and
	// its entry in the journal. A change its life does not allow is fault.InvalidState; an
	// unknown emission fault.NotFound.
	ChangeEmissionStatus(ctx context.Context, c lottery.EmissionChange, log lottery.OperatorAction) (lottery.EmissionChange, error)
	// OpenScheduled puts on sale the scheduled emissions whose on_sale_at has come by now, each
	// once whatever the servers, and names them.
	OpenScheduled(ctx context.Context, now time.Time) ([]string, error)
	// EmissionHistory lists an emission's changes of status, oldest first.
	EmissionHistory(ctx context.Context, id string) ([]lottery.EmissionChange, error)
	// EmissionStatuses is the status each emission took at its latest change, by id.
	EmissionStatuses(ctx context.Context) (map[string]string, error)
}

// Proposals are the changes four eyes decide (docs/spec/OPERATOR.md): proposed by one operator,
// approved or rejected by another.
type Proposals interface {
	// CreateProposal keeps an open proposal with its log line; one that cannot be done now
	// (an emission's id taken, an emission that cannot be withdrawn, roles that are the
	// operator's already) or is proposed already is fault.InvalidState.
	CreateProposal(ctx context.Context, p lottery.Proposal, log lottery.OperatorAction) (lottery.Proposal, error)
	// Proposal finds a proposal by id (fault.NotFound).
	Proposal(ctx context.Context, id int64) (lottery.Proposal, error)
	// Proposals lists the proposals in a status at now ("" for all), newest first.
	Proposals(ctx context.Context, status string, now time.Time, limit int) ([]lottery.Proposal, error)
	// DecideProposal approves (and carries out) or rejects a proposal once, with its log line
	// (its Action set by the outcome); fault.SameOperator for the proposer's own,
	// fault.InvalidState once decided or expired.
	DecideProposal(ctx context.Context, d lottery.Decision, log lottery.OperatorAction) (lottery.Proposal, error)
	// Creations are the emissions proposed (open at now) or approved and not yet made, oldest
	// first.
	Creations(ctx context.Context, now time.Time) ([]lottery.Proposal, error)
	// FailCreation fails an approved creation whose units could not be made, with its log line.
	FailCreation(ctx context.Context, id int64, note string, log lottery.OperatorAction) error
}

// PlayerActions are what an operator does to a player's account from the back office, each
// with its log line.
type PlayerActions interface {
	// BlockPlayer blocks play (their sessions ended, their logins refused) or unblocks it;
	// fault.InvalidState if it is so already.
	BlockPlayer(ctx context.Context, playerID int64, block bool, log lottery.OperatorAction) error
	// NotePlayer keeps a note on the account.
	NotePlayer(ctx context.Context, playerID int64, note string, log lottery.OperatorAction) error
	// PlayerNotes lists the notes kept on an account, newest first.
	PlayerNotes(ctx context.Context, playerID int64) ([]lottery.PlayerNote, error)
	// PayOutPlayer pays the whole balance out to the player's bank: what it paid.
	PayOutPlayer(ctx context.Context, playerID int64, log lottery.OperatorAction) (int64, error)
	// CloseByOperator closes the account, its balance paid out first: what it paid;
	// fault.InvalidState if it is closed already.
	CloseByOperator(ctx context.Context, playerID int64, log lottery.OperatorAction) (int64, error)
}

// Operators is the back office's operators and the log of their actions.
type Operators interface {
	// CreateOperator registers an operator and logs it, in one write; a name already taken
	// (whatever its case) is fault.UsernameTaken.
	CreateOperator(ctx context.Context, name, passwordHash string, roles lottery.Roles, log lottery.OperatorAction) (lottery.Operator, error)
	// OperatorByName finds an operator by name (case does not matter).
	OperatorByName(ctx context.Context, name string) (lottery.Operator, error)
	// OperatorByID finds an operator by id.
	OperatorByID(ctx context.Context, id int64) (lottery.Operator, error)
	// Operators lists every operator, by name, without their password hashes.
	Operators(ctx context.Context) ([]lottery.Operator, error)
	// ChangeOperator disables or enables an operator, sets their password hash, or ends their
	// sessions (lottery.Operator*), with its log line; disabling and a new password end their
	// sessions too.
	ChangeOperator(ctx context.Context, id int64, change, passwordHash string, log lottery.OperatorAction) error
	// CreateOperatorToken keeps an operator's new API token, by the SHA-256 of its secret, and
	// logs it (the line's detail gets the token's id), in one write: its id.
	CreateOperatorToken(ctx context.Context, operatorID int64, secretHash [32]byte, log lottery.OperatorAction) (int64, error)
	// OperatorToken finds a token by id, live or revoked (fault.NotFound: never made).
	OperatorToken(ctx context.Context, id int64) (lottery.OperatorToken, error)
	// RevokeOperatorToken ends a live token and logs it; fault.NotFound if never made,
	// fault.InvalidState if revoked already.
	RevokeOperatorToken(ctx context.Context, id int64, log lottery.OperatorAction) error
	// LogOperatorAction appends a line to the operators' log, and its entry to the journal.
	LogOperatorAction(ctx context.Context, a lottery.OperatorAction) error
	// OperatorLog lists the latest lines of the operators' log, newest first, before an id (0:
	// from the newest).
	OperatorLog(ctx context.Context, limit int, before int64) ([]lottery.OperatorAction, error)
}

// Jobs is the long jobs of the back office (an emission's creation), the leases of the sweeps,
// and the locks of sections that must not run twice at once.
type Jobs interface {
	// CreateJob records a new job and returns its id.
	CreateJob(ctx context.Context, j lottery.Job) (int64, error)
	// UpdateJob writes a job's progress, state and beat.
	UpdateJob(ctx context.Context, j lottery.Job) error
	// Job reads a job.
	Job(ctx context.Context, id int64) (lottery.Job, error)
	// RunningJob finds the latest job still running, if any.
	RunningJob(ctx context.Context) (lottery.Job, bool, error)
	// TryLease takes the lease called name for holder until a time, if it is free (never
	// taken, expired, or held by holder already), and tells whether it did.
	TryLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
	// ReleaseLease gives up a lease holder holds.
	ReleaseLease(ctx context.Context, name, holder string) error
	// Lease reads who holds the lease called name, and until when (ok false: nobody, ever).
	Lease(ctx context.Context, name string) (holder string, until time.Time, ok bool, err error)
	// WithLock runs fn while no other section of the same name runs, on any server of the
	// store.
	WithLock(ctx context.Context, name string, fn func() error) error
}

// Reports is what the back office and the commands add up: the sales, the open blocks, the
// books.
type Reports interface {
	// SalesOver groups the games sold since a time by period and price, oldest period first.
	// It reads the hourly totals the sales keep (sales_hourly), not the games.
	SalesOver(ctx context.Context, p lottery.Period, since time.Time) ([]lottery.Sales, error)
	// SalesBetween groups the games sold in the hours from one time (its hour included) until
	// another (its hour excluded) by period and price, oldest period first.
	SalesBetween(ctx context.Context, p lottery.Period, from, until time.Time) ([]lottery.Sales, error)
	// SalesTotals are the games ever sold, by price, lowest price first (from the hourly
	// totals).
	SalesTotals(ctx context.Context) ([]lottery.Sales, error)
	// UnfinishedPrizes lists the winning games sold from one time until another whose reveal
	// has not ended, one Sales a game (its time, stake and prize).
	UnfinishedPrizes(ctx context.Context, from, until time.Time) ([]lottery.Sales, error)
	// OpenBlockSales lists the blocks that still have units to sell, with the prizes of their
	// units already sold (the totals each sale adds to its block).
	OpenBlockSales(ctx context.Context) ([]lottery.BlockSales, error)
	// CheckLedger proves that the books balance:
	//
	//   - the accounts sum to zero;
	//   - every balance equals its transfers;
	//   - every game has exactly its stake and (when it won) its prize transfer;
	//   - every block's sold count equals its games, which are its first units, each sold once;
	//   - what the sales keep for the back office (the totals by block and by hour, each game's
	//     transfer ids) agrees with the games and transfers.
	CheckLedger(ctx context.Context) (*lottery.LedgerCheck, error)
	// RaiseLedgerMark writes the triggers that record the games and transfers at or below the
	// largest ids now (never below floor's) inserted late, changed or deleted, and returns that
	// watermark. A floor with a schema must still be the database's (lottery.ErrSchemaChanged).
	RaiseLedgerMark(ctx context.Context, floor lottery.Watermark) (lottery.Watermark, error)
	// CheckBooks is CheckLedger since a mark (nil: the whole history), and the mark of what it
	// proved at w when it found nothing wrong (lottery.BooksMark).
	CheckBooks(ctx context.Context, old lottery.Watermark, mark *lottery.BooksMark, w lottery.Watermark) (*lottery.LedgerCheck, *lottery.BooksMark, error)
	// LedgerMark is the mark the last check recorded, as it was signed (nil: none yet).
	LedgerMark(ctx context.Context) ([]byte, error)
	// KeepLedgerMark records a check's mark, made at a time, in place of the last one, if the
	// schema is still the one it names (lottery.ErrSchemaChanged: another check raised the
	// watermark since, or the schema changed; the mark is not kept).
	KeepLedgerMark(ctx context.Context, schema string, mark []byte, at time.Time) error
}

// Register is the list of excluded persons (the register of the regulation's self-exclusion).
type Register interface {
	// ImportRegister replaces the list of excluded persons with persons, in one write. The write
	// closes every open account of a listed person: its balance paid out to the bank, its
	// sessions ended. It keeps the import with its counts and returns it.
	ImportRegister(ctx context.Context, persons []identity.Person, imp lottery.RegisterImport) (lottery.RegisterImport, error)
	// RegisterImports lists the imports of the list of excluded persons, the latest first.
	RegisterImports(ctx context.Context, limit int) ([]lottery.RegisterImport, error)
	// RegisterPersons lists up to limit persons of the list of excluded persons, in the order of
	// their key, and how many it holds. It starts at the first whose last name comes at or after
	// start's, both as identities compare them (identity.NameKey).
	RegisterPersons(ctx context.Context, start string, limit int) ([]identity.Person, int, error)
}

// Limits is a player's weekly limits and their play session.
type Limits interface {
	// Limits reads a player's limits as they hold at now, with the deposits and the stakes of
	// the week up to now.
	Limits(ctx context.Context, playerID int64, now time.Time) (lottery.Limits, error)
	// SetLimits applies a change of a player's limits asked for at now by someone ("player",
	// or an operator's name). It keeps each change of a limit, and returns the limits after it.
	// It is one write, so a sale or a deposit is checked against the limits before it or after
	// it.
	SetLimits(ctx context.Context, playerID int64, c lottery.LimitsChange, by string, now time.Time) (lottery.Limits, error)
	// MoveStakeWindows brings forward, as a sale would, the stake windows that a stake has left
	// since they last moved, of at most n players, and says how many it moved: Limits then reads
	// the games of one sweep's span, not those since the player's last sale.
	MoveStakeWindows(ctx context.Context, now time.Time, n int) (int, error)
	// LimitChanges lists the changes of a player's limits, the latest first.
	LimitChanges(ctx context.Context, playerID int64) ([]lottery.LimitChange, error)
	// PlaySession reads a player's play session. It began at the opening of their earliest
	// session still live: last seen at or after idleBefore, opened at or after createdBefore
	// (none is fault.NotLoggedIn). It holds the stakes and prizes of the games sold since, and
	// the last reality check answered in it.
	PlaySession(ctx context.Context, playerID int64, idleBefore, createdBefore time.Time) (lottery.PlaySession, error)
	// AnswerRealityCheck records that the player answered « Continuer » to the reality check
	// due minutes into their current play session, and returns the play session after it. The
	// mark never goes back within a play session (two tabs answering the same check, in either
	// order). An answer of an earlier play session counts for nothing in a later one.
	AnswerRealityCheck(ctx context.Context, playerID int64, idleBefore, createdBefore time.Time, minutes int) (lottery.PlaySession, error)
}

// Demo is demo play (docs/spec/API.md 1.2): its sessions and games, in tables of their own that
// nothing else of the store reads (lottery.DemoSale and its kin).
type Demo interface {
	// CreateDemoSession starts a demo session, unless max are open already: what a crowd of
	// visitors can make the store hold is bounded. Sessions started at once on several servers
	// may each see one fewer than the other.
	CreateDemoSession(ctx context.Context, s lottery.DemoSession, max int) error
	// DemoSession finds a demo session by its token's hash; none is fault.NotLoggedIn.
	DemoSession(ctx context.Context, hash []byte) (lottery.DemoSession, error)
	// EndDemoSession forgets a demo session and its games.
	EndDemoSession(ctx context.Context, hash []byte) error
	// ForgetDemoSessions deletes the demo sessions idle since before idleBefore or started
	// before createdBefore, and their games, and returns how many sessions it deleted.
	ForgetDemoSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error)
	// SellDemo sells a demo game to its session (lottery.DemoSale), or returns the game sold
	// under its key already (and true).
	SellDemo(ctx context.Context, s lottery.DemoSale, now time.Time) (lottery.DemoGame, bool, error)
	// DemoGame reads a game of a demo session; another session's game is not found.
	DemoGame(ctx context.Context, session []byte, id int64) (lottery.DemoGame, error)
	// DemoGames lists a demo session's games, newest first, before a game id (0: from the
	// newest).
	DemoGames(ctx context.Context, session []byte, limit int, before int64) ([]lottery.DemoGame, error)
	// SaveDemoMoves writes a demo game's new moves if it still stands as they were read
	// (lottery.ErrMoved otherwise). Its session must still be there and live (u.Session, alive;
	// u.PlayerID is unused). It notes the session's activity.
	SaveDemoMoves(ctx context.Context, u lottery.MoveUpdate, alive lottery.DemoAlive, now time.Time) error
}

// Outbox is what the sender of the wallet's outbox (wallet.Sender) needs: the calls due, and
// what became of them (seamless wallet mode, docs/spec/WALLET.md).
type Outbox interface {
	// ClaimWalletCalls takes up to limit calls due at now, oldest due first. It makes them due
	// again only after lease, the time to send them, so that no other sender takes them
	// meanwhile.
	ClaimWalletCalls(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]lottery.WalletCall, error)
	// SettleWalletCalls writes what became of a sending of calls, by transaction id:
	// acknowledged, disputed, or due again at a time; in one write. A call acknowledged stays
	// so (a late answer of an earlier sending changes nothing).
	SettleWalletCalls(ctx context.Context, outcomes map[string]lottery.CallOutcome, now time.Time) error
}

// WalletSales is what a sale of wallet mode keeps in the outbox around its debit, and the sweep
// of calls a crash left held.
type WalletSales interface {
	// ReserveGameID hands out the id of a game to be sold later (SaleRequest.GameID): never
	// twice, on any server.
	ReserveGameID(ctx context.Context) (int64, error)
	// HoldRollback keeps a sale's rollback held before its debit is sent. It is one write with
	// the check of the sale's Idempotency-Key: a key answered already gives its answer (found),
	// and nothing is kept. One write, where a read of the key and then a write would cost a sale
	// twice.
	HoldRollback(ctx context.Context, playerID int64, key string, call lottery.WalletCall, now time.Time) (lottery.KeptAnswer, bool, error)
	// AddWalletCalls keeps calls to send. A call already kept under its transaction id is kept
	// as it was: the same call is a no-op, another (another body, amount, player or round) an
	// error (a call never changes).
	AddWalletCalls(ctx context.Context, calls []lottery.WalletCall, now time.Time) error
	// ReleaseWalletCalls makes held calls due now: by transaction id (a rollback whose sale was
	// not made) or by round (the credit of a game that finished).
	ReleaseWalletCalls(ctx context.Context, transactionIDs, rounds []string, now time.Time) error
	// DropHeldWalletCalls forgets held calls that will never be owed:
	//
	//   - the rollback of a debit the wallet refused (a refusal is final);
	//   - the rollback of a debit never sent (held ahead of a sale that did not come).
	DropHeldWalletCalls(ctx context.Context, transactionIDs []string) error
	// ReleaseStaleWalletCalls makes due the held calls a crash left held:
	//
	//   - a rollback held since before a time whose round was never sold (the process died
	//     between the debit and the sale);
	//   - a credit whose game is finished (it died between the finish and the release).
	ReleaseStaleWalletCalls(ctx context.Context, before, now time.Time) (int64, error)
}

// WalletBooks is what the outbox and the rounds of wallet mode add up to, for the metrics, the
// back office and reconciling.
type WalletBooks interface {
	// OutboxState counts the calls not yet acknowledged, the oldest's age, and the disputed
	// ones.
	OutboxState(ctx context.Context, now time.Time) (lottery.OutboxState, error)
	// WalletCalls lists up to limit calls in a status, the longest kept first, each with its
	// player's account and its round's game here, when there are.
	WalletCalls(ctx context.Context, status string, limit int) ([]lottery.OutboxCall, error)
	// WalletRounds lists the rounds of the operator's players: each game's stake and prize, and
	// whether the wallet acknowledged its credit.
	WalletRounds(ctx context.Context) ([]lottery.Round, error)
}

// Launches is the operator's launches of its players (docs/spec/WALLET.md 1.1).
type Launches interface {
	// LaunchPlayer finds the operator's player by their id at the operator, or opens an
	// account for them. The same write keeps the launch: its token (its hash), good until it
	// expires, with its nonce and its operator's session. A nonce used already, by any launch,
	// is fault.DuplicateLaunch, and nothing is written. A player's operator's session is their
	// first launch's, never changed.
	LaunchPlayer(ctx context.Context, l lottery.Launch, now time.Time) (lottery.Player, error)
	// UseLaunch spends a launch token: the player it opens a session for, once, before it
	// expires (fault.NotLoggedIn otherwise). The session it opens (its token's hash) is noted
	// with the launch, for WalletPlayerOf.
	UseLaunch(ctx context.Context, tokenHash, sessionHash []byte, now time.Time) (int64, error)
	// WalletPlayerOf says who a player is at the operator, and the operator's session that
	// their session (its token's hash) sends. That is the session of the launch that opened it.
	// A session opened before launches kept theirs sends the player's own, and so does no
	// session (the server's own calls). A player the operator did not launch is fault.NotFound.
	WalletPlayerOf(ctx context.Context, playerID int64, sessionHash []byte) (walletPlayer, operatorSession string, err error)
}

// Journal is the journal of every event that moves money or changes what a player may do
// (docs/spec/API.md 1.2). Every write of the store that records one appends its entries in its
// own transaction; journal.Store is what the tree and its checkpoints are built through
// (journal.Log).
type Journal interface {
	journal.Store
	// Beginning says where the journal began in the database's rows: the first game and the first
	// transfer it covers. A database migrated with history keeps its past outside it.
	Beginning(ctx context.Context) (firstGame, firstTransfer int64, err error)
}

// JournalCheck is the comparison of the database with its journal, for ledger check: a
// database administrator's rewrite that keeps the books balanced still differs from the entries
// written with the rows, and from the checkpoints signed over them.
type JournalCheck interface {
	// CompareJournal compares, in one snapshot of the database:
	//
	//   - each entry with its rows: a sale with its game and its unit's leaf, a prize, a deposit
	//     or a withdrawal with its transfer, each rebuilt with journal.Encode, byte for byte;
	//   - each game and transfer since the journal began with its entry, named once;
	//   - each player's exclusion, closure and limits with the entries that record them;
	//   - the entries up to the latest checkpoint with the root it signs, and its signature.
	//
	// Each difference names the entry. It reads the journal a chunk at a time, in memory that
	// does not grow with it but for a bit per game and transfer.
	CompareJournal(ctx context.Context, o journal.CompareOptions) (*journal.Comparison, error)
}

// EmissionWrite is a store's write of a new emission made by by, as emission.Create takes it:
// CreateEmission, or CreateEmissionStaged when staged.
func EmissionWrite(s Emissions, by string, staged bool) emission.Write {
	create := s.CreateEmission
	if staged {
		create = s.CreateEmissionStaged
	}
	return func(ctx context.Context, e *emission.Emission, seed [emission.SeedSize]byte,
		build func(put func(emission.Page) error) ([]emission.Block, error)) error {
		return create(ctx, e, seed, by, build)
	}
}

// Health is what the store says of itself: whether it can write, whether its files are sound,
// whether one server alone serves it, and what its writes have done.
type Health interface {
	// CheckWrite says whether the store can write now. It fails if a write has failed for the
	// store's sake in the last few seconds, or if a write of its own fails (fault.WriteHealth).
	// It makes that write at most once a second.
	CheckWrite(ctx context.Context) error
	// CheckFile reports damage to the database's files, at most 20 lines; nothing when they
	// are sound.
	CheckFile(ctx context.Context) ([]string, error)
	// OneServer tells that this process is the only server of the store, so that what it keeps
	// in memory of it, such as a copy of its sessions, stays exact.
	OneServer() bool
	// WriteStats tells what the store's batches of writes have done since it was opened.
	WriteStats() lottery.WriteStats
}
