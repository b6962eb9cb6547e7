package emission

import (
	"fmt"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/rules"
)

// PageUnits is how many consecutive units of a block are stored together. A page is the unit of
// storage and of parallel work, and its subtree root is kept, so that the proof of one unit needs
// only its own page. It is a power of two: an aligned page is then a node of the block's tree.
const PageUnits = 256

// A page stores each unit as a fixed record, then the board 2 of the units that have one, in
// order. A record is the prize's tier, a flags byte (bit 0: board 2 follows), the salt and board 1.
// A star is one byte: its colour in the top three bits, its content code in the low five.
const (
	recordSize = 2 + audit.SaltSize + rules.Cells
	flagB2     = 1

	codeEmpty     = 0
	codeMilkyWay  = 1
	codeRising    = 2
	codeFalling   = 3
	codeExtra     = 4
	codeSupernova = 5                               // + target colour
	codeAmount    = codeSupernova + rules.NumColors // + index in the table's amounts
)

// codec turns units into page bytes and back for one prize table.
type codec struct {
	tiers   []int64 // tier amounts, by tier index
	tierOf  map[int64]byte
	amounts []int64
	codeOf  map[int64]byte
	star    [256]rules.Star // the star each stored byte stands for, when valid[byte]
	valid   [256]bool
}

func newCodec(t *gamedef.Table) (*codec, error) {
	if codeAmount+len(t.Amounts) > 32 || len(t.Tiers) > 255 {
		return nil, fmt.Errorf("table at %s has too many amounts or tiers to store", gamedef.FormatEUR(t.Price))
	}
	c := &codec{tierOf: map[int64]byte{}, codeOf: map[int64]byte{}, amounts: t.Amounts}
	for i, tr := range t.Tiers {
		c.tiers = append(c.tiers, tr.Amount)
		c.tierOf[tr.Amount] = byte(i)
	}
	for i, a := range t.Amounts {
		c.codeOf[a] = byte(codeAmount + i)
	}
	// Decoding is a table lookup: every byte is decoded once here, the slow way.
	for v := range 256 {
		s, err := c.decodeStar(byte(v))
		c.star[v], c.valid[v] = s, err == nil
	}
	return c, nil
}

func (c *codec) appendBoard(dst []byte, b *rules.Board) []byte {
	for i := range b {
		s := &b[i]
		var code byte
		switch s.Kind {
		case rules.MilkyWay:
			code = codeMilkyWay
		case rules.ShootingStar:
			code = codeFalling
			if s.Rising {
				code = codeRising
			}
		case rules.Extra:
			code = codeExtra
		case rules.Supernova:
			code = codeSupernova + byte(s.Target)
		case rules.Amount:
			code = c.codeOf[s.Amount]
		}
		dst = append(dst, byte(s.Color)<<5|code)
	}
	return dst
}

func (c *codec) decodeBoard(src []byte, b *rules.Board) error {
	for i := range b {
		v := src[i]
		if !c.valid[v] {
			_, err := c.decodeStar(v)
			return fmt.Errorf("cell %d: %v", i, err)
		}
		b[i] = c.star[v]
	}
	return nil
}

// decodeStar reads one stored byte.
func (c *codec) decodeStar(v byte) (rules.Star, error) {
	color, code := rules.Color(v>>5), v&31
	if !color.Valid() {
		return rules.Star{}, fmt.Errorf("colour %d", color)
	}
	s := rules.Star{Color: color}
	switch {
	case code == codeEmpty:
	case code == codeMilkyWay:
		s.Kind = rules.MilkyWay
	case code == codeRising, code == codeFalling:
		s.Kind, s.Rising = rules.ShootingStar, code == codeRising
	case code == codeExtra:
		s.Kind = rules.Extra
	case code < codeAmount:
		s.Kind, s.Target = rules.Supernova, rules.Color(code-codeSupernova)
	case int(code-codeAmount) < len(c.amounts):
		s.Kind, s.Amount = rules.Amount, c.amounts[code-codeAmount]
	default:
		return rules.Star{}, fmt.Errorf("content code %d", code)
	}
	return s, nil
}

// encodePage writes the records of a page, then its boards 2.
func (c *codec) encodePage(dst []byte, recs []audit.Record) []byte {
	for i := range recs {
		r := &recs[i]
		var flags byte
		if r.Unit.HasB2 {
			flags |= flagB2
		}
		dst = append(dst, c.tierOf[r.Prize], flags)
		dst = append(dst, r.Salt[:]...)
		dst = c.appendBoard(dst, &r.Unit.B1)
	}
	for i := range recs {
		if recs[i].Unit.HasB2 {
			dst = c.appendBoard(dst, &recs[i].Unit.B2)
		}
	}
	return dst
}

// decodeRecord reads the fixed record of the unit at block index index, board 1 included.
func (c *codec) decodeRecord(rec []byte, index int, r *audit.Record) error {
	if int(rec[0]) >= len(c.tiers) || rec[1]&^flagB2 != 0 {
		return fmt.Errorf("corrupt record of unit %d", index)
	}
	r.Index, r.Prize = index, c.tiers[rec[0]]
	copy(r.Salt[:], rec[2:2+audit.SaltSize])
	if err := c.decodeBoard(rec[2+audit.SaltSize:], &r.Unit.B1); err != nil {
		return fmt.Errorf("corrupt board 1 of unit %d: %v", index, err)
	}
	r.Unit.HasB2 = rec[1]&flagB2 != 0
	r.Unit.B2 = rules.Board{}
	return nil
}

// decodeB2 reads board 2 of a unit from offset off of the page.
func (c *codec) decodeB2(page []byte, off int, r *audit.Record) error {
	if off+rules.Cells > len(page) {
		return fmt.Errorf("corrupt page: board 2 of unit %d is missing", r.Index)
	}
	if err := c.decodeBoard(page[off:off+rules.Cells], &r.Unit.B2); err != nil {
		return fmt.Errorf("corrupt board 2 of unit %d: %v", r.Index, err)
	}
	return nil
}

// decodeUnit reads unit j of a page holding n units; first is the block index of its unit 0.
func (c *codec) decodeUnit(page []byte, n, j, first int, r *audit.Record) error {
	if j < 0 || j >= n || len(page) < n*recordSize {
		return fmt.Errorf("corrupt page: unit %d of %d in %d bytes", j, n, len(page))
	}
	if err := c.decodeRecord(page[j*recordSize:(j+1)*recordSize], first+j, r); err != nil || !r.Unit.HasB2 {
		return err
	}
	// Board 2 of this unit comes after those of the earlier units of the page that have one.
	off := n * recordSize
	for k := range j {
		if page[k*recordSize+1]&flagB2 != 0 {
			off += rules.Cells
		}
	}
	return c.decodeB2(page, off, r)
}

// decodePage reads every unit of a page holding n units.
func (c *codec) decodePage(page []byte, n, first int, recs []audit.Record) error {
	if len(page) < n*recordSize {
		return fmt.Errorf("corrupt page: %d units in %d bytes", n, len(page))
	}
	off := n * recordSize
	for j := range n {
		r := &recs[j]
		if err := c.decodeRecord(page[j*recordSize:(j+1)*recordSize], first+j, r); err != nil {
			return err
		}
		if r.Unit.HasB2 {
			if err := c.decodeB2(page, off, r); err != nil {
				return err
			}
			off += rules.Cells
		}
	}
	if off != len(page) {
		return fmt.Errorf("corrupt page: %d bytes left over", len(page)-off)
	}
	return nil
}
