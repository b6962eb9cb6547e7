package audit

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Format names this version of the audit export.
const Format = "starcolor-audit/1"

// Header is the first line of an export. The fields before Definition are those docs/spec/RULES.md §8
// requires; the others help an auditor and are checked when present.
type Header struct {
	Format     string      `json:"format"`
	Emission   string      `json:"emission"`
	Price      json.Number `json:"price"` // EUR
	Block      int         `json:"block"`
	Units      int         `json:"units"`
	Tiers      []Tier      `json:"tiers"`
	Root       string      `json:"root"`
	Definition string      `json:"definition,omitempty"`
	PriceCents int64       `json:"price_cents,omitempty"`
	Amounts    []int64     `json:"amounts,omitempty"`
	CreatedAt  string      `json:"created_at,omitempty"`
}

// Tier is one row of the prize table in a header: amount in cents, units of the block.
type Tier struct {
	Amount    int64 `json:"amount"`
	Count     int   `json:"count"`
	Composite bool  `json:"composite"`
}

// EUR writes cents as a JSON number of euros: 2 for 200, 1.5 for 150.
func EUR(cents int64) json.Number {
	if cents%100 == 0 {
		return json.Number(strconv.FormatInt(cents/100, 10))
	}
	return json.Number(fmt.Sprintf("%d.%02d", cents/100, cents%100))
}

// Cents reads a header price in euros, exactly: at most two decimals, no float rounding.
func Cents(eur json.Number) (int64, error) {
	s := string(eur)
	whole, frac := s, ""
	for i := range len(s) {
		if s[i] == '.' {
			whole, frac = s[:i], s[i+1:]
			break
		}
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 || len(frac) > 2 || w > 1e12 {
		return 0, fmt.Errorf("price %q is not an amount of euros", s)
	}
	cents := w * 100
	if frac != "" {
		for len(frac) < 2 {
			frac += "0"
		}
		f, err := strconv.ParseUint(frac, 10, 8)
		if err != nil {
			return 0, fmt.Errorf("price %q is not an amount of euros", s)
		}
		cents += int64(f)
	}
	return cents, nil
}
