package game

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
	"starcolor/internal/rules"
)

// The sale of a unit (docs/spec/RULES.md §7): the request checked, the sale made in the store's
// batched writer, and its answer rendered once it is committed.

// Play sells a unit to the player (docs/spec/RULES.md §7) under an Idempotency-Key: « Auto »
// comes back finished with a colour drawn at random; « Jouer » waits for the colour. The request
// is checked here, and sold where the money is (money.sell); the store makes the sale in its
// batched writer (Store.Sell), and keeps under the key a reference to the game, rendered again
// for a retry.
func (s *Service) Play(ctx context.Context, p Player, r Request, stake int64, mode string) (lottery.Answer, *lottery.Game, error) {
	hash, err := requestHash(r)
	if err != nil {
		return lottery.Answer{}, nil, err
	}
	if err := s.checkSale(stake, mode); err != nil {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
		return ans, nil, err
	}
	return s.money.sell(ctx, p, s.saleRequest(p, r.Key, hash, stake, mode))
}

// SaleRequest is the request Play hands the store for a sale (Store.Sell), checked, for those
// that sell without the API: the fill tool, which makes a year of sales through the store's own
// sale path.
func (s *Service) SaleRequest(p Player, r Request, stake int64, mode string) (lottery.SaleRequest, error) {
	hash, err := requestHash(r)
	if err != nil {
		return lottery.SaleRequest{}, err
	}
	if err := s.checkSale(stake, mode); err != nil {
		return lottery.SaleRequest{}, err
	}
	return s.saleRequest(p, r.Key, hash, stake, mode), nil
}

// saleRequest is a checked sale's request: « Auto » has its colour drawn already.
func (s *Service) saleRequest(p Player, key string, hash [32]byte, stake int64, mode string) lottery.SaleRequest {
	req := lottery.SaleRequest{
		PlayerID: p.ID, AccountID: p.AccountID, Session: p.session, Price: stake, Mode: mode, Color: -1, Status: lottery.ChooseColor,
		Key: key, RequestHash: hash[:], Prizes: s.units,
	}
	if mode == lottery.Auto {
		req.Color, req.Status = randomColor(), lottery.Finished // drawn before the store's turn: it costs a system call
	}
	return req
}

// checkSale says why a sale cannot be made as asked, if it cannot: a mode or a stake not on
// sale, or a store known to be damaged.
func (s *Service) checkSale(stake int64, mode string) error {
	if mode != lottery.Manual && mode != lottery.Auto {
		return fault.Errorf(fault.Invalid, `mode must be "manual" or "auto"`)
	}
	if err := s.stakes.check(stake); err != nil {
		return err
	}
	return s.damagedStore()
}

// stakes are the stakes on sale: the prices of the game definition's tables. Any other stake is
// refused with a message that names them, made once.
type stakes struct {
	prices  []int64 // increasing
	refusal error
}

// stakesOf are the stakes on sale in a game definition. For the regulation's, the refusal reads
// "the stake is 100, 200 or 300 cents (1, 2 or 3 €)".
func stakesOf(def *gamedef.Definition) stakes {
	var st stakes
	for _, t := range def.Tables {
		st.prices = append(st.prices, t.Price)
	}
	slices.Sort(st.prices)
	cents, euros := make([]string, len(st.prices)), make([]string, len(st.prices))
	for i, p := range st.prices {
		cents[i] = strconv.FormatInt(p, 10)
		euros[i] = strings.TrimSuffix(gamedef.FormatEUR(p), " €")
	}
	st.refusal = fault.Errorf(fault.Invalid, "the stake is %s cents (%s €)", orList(cents), orList(euros))
	return st
}

// check refuses a stake not on sale.
func (st *stakes) check(stake int64) error {
	if slices.Contains(st.prices, stake) {
		return nil
	}
	return st.refusal
}

// orList lists words as a sentence does: "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// saleAnswer is the answer to a sale that the store made (g) or refused (err). A refused sale is
// answered with what is kept under its key, if a copy of the request was sold meanwhile.
func (s *Service) saleAnswer(ctx context.Context, p Player, req *lottery.SaleRequest, g lottery.Game, err error) (lottery.Answer, *lottery.Game, error) {
	if err != nil {
		ans, err := s.storedAnswer(ctx, p, req.Key, req.RequestHash, err)
		return ans, nil, err
	}
	// The reveal and the answer's JSON are made once the sale is committed, outside the writer:
	// only what must be atomic is done in its turn.
	ans, err := s.soldAnswer(ctx, &g)
	return ans, &g, err
}

// soldAnswer is the answer to a sale once it is committed. If it cannot be made, the error says
// that the game was bought all the same, and how to get it: the stake is taken, and a retry under
// the same key answers it.
func (s *Service) soldAnswer(ctx context.Context, g *lottery.Game) (lottery.Answer, error) {
	body, err := s.render(ctx, g)
	if err != nil {
		return lottery.Answer{}, &fault.Error{Code: fault.Internal, Cause: err, Message: fmt.Sprintf(
			"the game was bought (game %d, in your history) but its answer could not be made: ask for it again with the same Idempotency-Key, or GET /api/v1/games/%d", g.ID, g.ID)}
	}
	return lottery.Answer{Status: 201, Body: body}, nil
}

// saleView is a game as its sale answered it: « Auto » finished, « Jouer » waiting for its
// colour, whatever has been played since.
func (s *Service) saleView(ctx context.Context, p Player, id int64) (*View, error) {
	g, err := s.db.Game(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	g.Clicks = nil
	if g.Mode == lottery.Auto {
		g.Status = lottery.Finished
	} else {
		g.Status, g.Color = lottery.ChooseColor, -1
	}
	play, err := s.replay(ctx, &g)
	if err != nil {
		return nil, err
	}
	return view(&g, play), nil
}

// render replays a game and writes its answer.
func (s *Service) render(ctx context.Context, g *lottery.Game) ([]byte, error) {
	play, err := s.replay(ctx, g)
	if err != nil {
		return nil, err
	}
	return view(g, play).AppendJSON(make([]byte, 0, 4096)), nil
}

func randomColor() int {
	n, _ := rand.Int(rand.Reader, big.NewInt(rules.NumColors))
	return int(n.Int64())
}
