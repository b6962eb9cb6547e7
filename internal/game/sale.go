package game

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"

	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/rules"
)

// The sale of a unit (docs/spec/RULES.md §7): the request checked, the sale made in the store's
// batched writer, and its answer rendered once it is committed.

// Play sells a unit to the player (docs/spec/RULES.md §7) under an Idempotency-Key, like Idempotent: « Auto »
// comes back finished with a colour drawn at random; « Jouer » waits for the colour. The sale is
// the store's batched kind (Store.Sell): its answer under the key is a reference to the game,
// rendered again for a retry.
func (s *Service) Play(ctx context.Context, p Player, r Request, stake int64, mode string) (lottery.Answer, *lottery.Game, error) {
	hash, err := requestHash(r)
	if err != nil {
		return lottery.Answer{}, nil, err
	}
	if mode != lottery.Manual && mode != lottery.Auto {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], fault.Errorf(fault.Invalid, `mode must be "manual" or "auto"`))
		return ans, nil, err
	}
	if stake != 100 && stake != 200 && stake != 300 {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], fault.Errorf(fault.Invalid, "the stake is 100, 200 or 300 cents (1, 2 or 3 €)"))
		return ans, nil, err
	}
	if err := s.damagedStore(); err != nil {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
		return ans, nil, err
	}
	req := lottery.SaleRequest{
		PlayerID: p.ID, AccountID: p.AccountID, Session: p.session, Price: stake, Mode: mode, Color: -1, Status: lottery.ChooseColor,
		Key: r.Key, RequestHash: hash[:],
		Prizes: s.units,
	}
	if mode == lottery.Auto {
		req.Color, req.Status = randomColor(), lottery.Finished // drawn before the store's turn: it costs a system call
	}
	var walletDone func(sold bool)
	if s.wallet != nil {
		// A sale refused is not kept under its key (docs/spec/WALLET.md): a retry is a new attempt.
		// A key answered already answers the same: checked before the debit, or with the sale
		// when the player's rollback was held ahead (the debit of a copy of an older sale is
		// then rolled back). The same key sent twice at once waits here for its first sale
		// (saleKeys), and then answers the same; sent to two servers at once, both debit, and
		// the second sale, refused for its key, rolls its debit back.
		unlock, err := s.wallet.keys.lock(ctx, p.ID, r.Key)
		if err != nil {
			return lottery.Answer{}, nil, err
		}
		defer unlock()
		kept, done, err := s.walletSale(ctx, p, &req)
		walletDone = done
		if err == nil && kept != nil {
			ans, err := s.keptAnswer(ctx, p, *kept, hash[:])
			return ans, nil, err
		}
		if err != nil {
			// The debit refused, or its outcome unknown: the answer of a copy of the request
			// sold meanwhile on another server, if there is one, else the refusal.
			ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
			return ans, nil, err
		}
	}
	g, err := s.db.Sell(ctx, req, s.now())
	if err != nil && req.Wallet != nil {
		s.rollBack(ctx, req.Wallet.Rollback) // the debit stands, the sale does not: rolled back
		s.noteSale(stake, err)
	}
	if walletDone != nil {
		walletDone(err == nil)
	}
	if err != nil {
		ans, err := s.storedAnswer(ctx, p, r.Key, hash[:], err)
		return ans, nil, err
	}
	if req.Wallet != nil {
		s.wallet.Wake() // the credit of an « Auto » game is due
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
