// Package gamedef holds the game definition as data: the prize tables of the regulation (Art. 3),
// which tiers are composite only, the amounts that may be shown under a star, and the presentation
// frequencies the generator aims at. Definitions are versioned JSON files embedded in the binary;
// a new regulation or table is a new file, never a code change. An emission records the version it
// was made with, so a definition file must never change once an emission uses it.
package gamedef

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
)

// Format is the value of the "format" field that every definition file carries.
const Format = "starcolor-game/1"

// MaxAmounts bounds the amounts a table may show under a star; the unit storage gives each its
// own code in one byte alongside the star's colour.
const MaxAmounts = 21

// Definition is one version of the game.
type Definition struct {
	Format       string       `json:"format"`
	Version      string       `json:"version"`
	Name         string       `json:"name"`
	Regulation   string       `json:"regulation"`
	BlockUnits   int          `json:"block_units"`
	MaxGains     int          `json:"max_gains"`
	Tables       []Table      `json:"tables"`
	Presentation Presentation `json:"presentation"`
}

// Table is the prize table of one price (all money in euro cents).
type Table struct {
	Price   int64   `json:"price"`
	Tiers   []Tier  `json:"tiers"`
	Amounts []int64 `json:"amounts"`
}

// Tier is one row of a prize table: how many units of a block win Amount (0 for losing units).
// A composite tier is reachable only by cumulating several gains in one unit (3.1–3.3).
type Tier struct {
	Amount    int64 `json:"amount"`
	Count     int   `json:"count"`
	Composite bool  `json:"composite,omitempty"`
}

// Presentation holds the frequencies the scenario generator draws from. Rates are per 10,000;
// weights are relative. GainsWeights[k] weighs a winning unit showing k amounts; SymbolsWeights[k]
// weighs a board holding k explosion symbols (before any the amounts need to fit).
type Presentation struct {
	ExtraPer10000      int            `json:"extra_per_10000"`
	Board2GainPer10000 int            `json:"board2_gain_per_10000"`
	GainsWeights       []int          `json:"gains_weights"`
	SymbolsWeights     []int          `json:"symbols_weights"`
	KindWeights        map[string]int `json:"kind_weights"`
	ChainPer10000      int            `json:"chain_per_10000"`
}

// SymbolKinds names the explosion symbols, in the order of rules.SymMilkyWay and its followers.
var SymbolKinds = []string{"milky_way", "supernova", "shooting_star"}

//go:embed definitions/*.json
var files embed.FS

// Default is the version new emissions use.
const Default = "starcolor-fdj-2013/1"

// Lookup returns an embedded definition by version.
func Lookup(version string) (*Definition, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if d.Version == version {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown game definition %q", version)
}

// All returns every embedded definition, sorted by version.
func All() ([]*Definition, error) {
	names, err := fs.Glob(files, "definitions/*.json")
	if err != nil {
		return nil, err
	}
	var out []*Definition
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		d, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Raw returns the embedded file of a version, byte for byte.
func Raw(version string) ([]byte, error) {
	names, _ := fs.Glob(files, "definitions/*.json")
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if d, err := Parse(data); err == nil && d.Version == version {
			return data, nil
		}
	}
	return nil, fmt.Errorf("unknown game definition %q", version)
}

// Parse reads and validates a definition file; unknown fields are an error, so that a typo in a
// definition cannot silently fall back to a default.
func Parse(data []byte) (*Definition, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d Definition
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("game definition: %w", err)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("game definition %q: %w", d.Version, err)
	}
	return &d, nil
}

// Table returns the prize table at a price in cents.
func (d *Definition) Table(price int64) (*Table, error) {
	for i := range d.Tables {
		if d.Tables[i].Price == price {
			return &d.Tables[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %s; this game is sold at %s", ErrUnknownPrice, FormatEUR(price), d.PriceList())
}

// ErrUnknownPrice is returned for a price that the definition has no table for.
var ErrUnknownPrice = errors.New("unknown price")

// PriceList names the prices of the definition, for messages.
func (d *Definition) PriceList() string {
	var s string
	for i, t := range d.Tables {
		if i > 0 {
			s += ", "
		}
		s += FormatEUR(t.Price)
	}
	return s
}

// Validate checks the definition's internal consistency.
func (d *Definition) Validate() error {
	if d.Format != Format {
		return fmt.Errorf("format %q, want %q", d.Format, Format)
	}
	if d.Version == "" {
		return errors.New("no version")
	}
	if d.BlockUnits <= 0 {
		return fmt.Errorf("block_units %d is not positive", d.BlockUnits)
	}
	if d.MaxGains < 2 || d.MaxGains > 20 {
		return fmt.Errorf("max_gains %d is outside 2..20", d.MaxGains)
	}
	if len(d.Tables) == 0 {
		return errors.New("no prize table")
	}
	seen := map[int64]bool{}
	for i := range d.Tables {
		t := &d.Tables[i]
		if seen[t.Price] {
			return fmt.Errorf("two tables at price %d", t.Price)
		}
		seen[t.Price] = true
		if err := t.validate(d.BlockUnits); err != nil {
			return fmt.Errorf("table at %s: %w", FormatEUR(t.Price), err)
		}
	}
	return d.Presentation.validate(d.MaxGains)
}

func (t *Table) validate(blockUnits int) error {
	if t.Price <= 0 {
		return fmt.Errorf("price %d is not positive", t.Price)
	}
	if err := CheckTiers(t.Tiers, blockUnits); err != nil {
		return err
	}
	if len(t.Amounts) == 0 || len(t.Amounts) > MaxAmounts {
		return fmt.Errorf("%d amounts, want 1 to %d", len(t.Amounts), MaxAmounts)
	}
	if !slices.IsSorted(t.Amounts) || len(slices.Compact(slices.Clone(t.Amounts))) != len(t.Amounts) {
		return errors.New("amounts must be increasing")
	}
	for _, a := range t.Amounts {
		if a <= 0 {
			return fmt.Errorf("amount %d is not positive", a)
		}
		if tier, ok := t.Tier(a); ok && tier.Composite {
			return fmt.Errorf("amount %s equals a composite tier, which only several gains may reach", FormatEUR(a))
		}
	}
	return nil
}

// CheckTiers verifies a list of tiers for a block: distinct amounts, positive counts, and counts
// that add up to the block exactly, losing units included.
func CheckTiers(tiers []Tier, blockUnits int) error {
	total := 0
	amounts := map[int64]bool{}
	for _, tr := range tiers {
		if tr.Amount < 0 || tr.Count <= 0 {
			return fmt.Errorf("tier %s × %d is not a positive count of a non-negative amount", FormatEUR(tr.Amount), tr.Count)
		}
		if amounts[tr.Amount] {
			return fmt.Errorf("two tiers of %s", FormatEUR(tr.Amount))
		}
		if tr.Amount == 0 && tr.Composite {
			return errors.New("the losing tier cannot be composite")
		}
		amounts[tr.Amount] = true
		total += tr.Count
	}
	if !amounts[0] {
		return errors.New("no losing tier (amount 0)")
	}
	if total != blockUnits {
		return fmt.Errorf("tier counts add up to %d units, a block has %d", total, blockUnits)
	}
	return nil
}

func (p *Presentation) validate(maxGains int) error {
	rate := func(name string, v int) error {
		if v < 0 || v > 10000 {
			return fmt.Errorf("%s %d is outside 0..10000", name, v)
		}
		return nil
	}
	if err := errors.Join(rate("extra_per_10000", p.ExtraPer10000), rate("board2_gain_per_10000", p.Board2GainPer10000),
		rate("chain_per_10000", p.ChainPer10000)); err != nil {
		return err
	}
	if len(p.GainsWeights) != maxGains+1 {
		return fmt.Errorf("gains_weights has %d entries, want max_gains+1 = %d", len(p.GainsWeights), maxGains+1)
	}
	if err := weights("gains_weights", p.GainsWeights[1:]); err != nil {
		return err
	}
	if err := weights("symbols_weights", p.SymbolsWeights); err != nil {
		return err
	}
	var kw []int
	for _, k := range SymbolKinds {
		kw = append(kw, p.KindWeights[k])
	}
	if len(p.KindWeights) != len(SymbolKinds) {
		return fmt.Errorf("kind_weights must name exactly %v", SymbolKinds)
	}
	return weights("kind_weights", kw)
}

func weights(name string, w []int) error {
	sum := 0
	for _, x := range w {
		if x < 0 {
			return fmt.Errorf("%s holds a negative weight", name)
		}
		sum += x
	}
	if sum == 0 {
		return fmt.Errorf("%s has no positive weight", name)
	}
	return nil
}

// Tier returns the tier of an amount.
func (t *Table) Tier(amount int64) (Tier, bool) {
	for _, tr := range t.Tiers {
		if tr.Amount == amount {
			return tr, true
		}
	}
	return Tier{}, false
}

// Payout is the sum of the prizes of a block, in cents.
func (t *Table) Payout() int64 {
	var sum int64
	for _, tr := range t.Tiers {
		sum += tr.Amount * int64(tr.Count)
	}
	return sum
}

// Winners is the number of winning units in a block.
func (t *Table) Winners() int {
	n := 0
	for _, tr := range t.Tiers {
		if tr.Amount > 0 {
			n += tr.Count
		}
	}
	return n
}

// FormatEUR writes cents as euros for people: "12 €", "0,50 €", "20 000 €".
func FormatEUR(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	euros := fmt.Sprint(cents / 100)
	for i := len(euros) - 3; i > 0; i -= 3 {
		euros = euros[:i] + "\u202f" + euros[i:]
	}
	s := euros
	if c := cents % 100; c != 0 {
		s += fmt.Sprintf(",%02d", c)
	}
	if neg {
		s = "-" + s
	}
	return s + " €"
}
