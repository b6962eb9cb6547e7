package emission

import (
	"encoding/binary"
	"fmt"

	"starcolor/internal/audit"
	"starcolor/internal/gamedef"
	"starcolor/internal/rules"
)

// PageUnits is how many consecutive units of a block are stored together. A page is the unit of
// storage and of parallel work, and its subtree root is kept, so that the proof of one unit needs
// only its own page. It is a power of two: an aligned page is then a node of the block's tree.
const PageUnits = 256

// A page is a table of n offsets (little-endian uint16, from the start of the page), then one
// record per unit. A record holds:
//
//  1. the prize's tier;
//  2. a flags byte (bit 0: board 2 follows);
//  3. the salt;
//  4. board 1;
//  5. when flagged, board 2.
//
// A board holds:
//
//  1. its colours packed three bits a star: cells 0 to 20 in the low 63 bits of a little-endian
//     uint64, cells 21 to 41 in a second one;
//  2. the number of stars that hide something;
//  3. for each of those, in cell order, its cell and its content code.
//
// Most stars hide nothing, so a unit takes about 43 bytes, and a block about 43 MB. Writing them
// is what the creation of a block spends most of its database time on.
const (
	offsetSize = 2
	headSize   = 2 + audit.SaltSize
	colorBytes = 16
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
	content [32]rules.Star // the content each code stands for, when valid[code]
	valid   [32]bool
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
	// Decoding is a table lookup: every code is decoded once here, the slow way.
	for v := range len(c.content) {
		s, err := c.decodeContent(byte(v))
		c.content[v], c.valid[v] = s, err == nil
	}
	return c, nil
}

func (c *codec) code(s *rules.Star) byte {
	switch s.Kind {
	case rules.MilkyWay:
		return codeMilkyWay
	case rules.ShootingStar:
		if s.Rising {
			return codeRising
		}
		return codeFalling
	case rules.Extra:
		return codeExtra
	case rules.Supernova:
		return codeSupernova + byte(s.Target)
	case rules.Amount:
		return c.codeOf[s.Amount]
	}
	return codeEmpty
}

func (c *codec) appendBoard(dst []byte, b *rules.Board) []byte {
	var lo, hi uint64
	filled := 0
	for i := range b {
		if i < 21 {
			lo |= uint64(b[i].Color) << (3 * i)
		} else {
			hi |= uint64(b[i].Color) << (3 * (i - 21))
		}
		if b[i].Kind != rules.Empty {
			filled++
		}
	}
	dst = binary.LittleEndian.AppendUint64(dst, lo)
	dst = binary.LittleEndian.AppendUint64(dst, hi)
	dst = append(dst, byte(filled))
	for i := range b {
		if b[i].Kind != rules.Empty {
			dst = append(dst, byte(i), c.code(&b[i]))
		}
	}
	return dst
}

// decodeBoard reads a board from the start of src and returns how many bytes it took.
func (c *codec) decodeBoard(src []byte, b *rules.Board) (int, error) {
	if len(src) < colorBytes+1 {
		return 0, fmt.Errorf("board cut short")
	}
	lo, hi := binary.LittleEndian.Uint64(src), binary.LittleEndian.Uint64(src[8:])
	for i := range b {
		var v uint64
		if i < 21 {
			v = lo >> (3 * i) & 7
		} else {
			v = hi >> (3 * (i - 21)) & 7
		}
		if v >= rules.NumColors {
			return 0, fmt.Errorf("cell %d: colour %d", i, v)
		}
		b[i] = rules.Star{Color: rules.Color(v)}
	}
	n := int(src[colorBytes])
	size := colorBytes + 1 + 2*n
	if n > rules.Cells || len(src) < size {
		return 0, fmt.Errorf("board of %d filled stars cut short", n)
	}
	prev := -1
	for k := range n {
		cell, code := int(src[colorBytes+1+2*k]), src[colorBytes+2+2*k]
		if cell <= prev || cell >= rules.Cells || int(code) >= len(c.valid) || !c.valid[code] || code == codeEmpty {
			return 0, fmt.Errorf("filled star %d: cell %d, code %d", k, cell, code)
		}
		color := b[cell].Color
		b[cell] = c.content[code]
		b[cell].Color = color
		prev = cell
	}
	return size, nil
}

// decodeContent reads one content code.
func (c *codec) decodeContent(code byte) (rules.Star, error) {
	var s rules.Star
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
		return s, fmt.Errorf("content code %d", code)
	}
	return s, nil
}

// encodePage writes the offsets of a page, then its records.
func (c *codec) encodePage(dst []byte, recs []audit.Record) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, offsetSize*len(recs))...)
	for i := range recs {
		r := &recs[i]
		binary.LittleEndian.PutUint16(dst[start+offsetSize*i:], uint16(len(dst)-start))
		var flags byte
		if r.Unit.HasB2 {
			flags |= flagB2
		}
		dst = append(dst, c.tierOf[r.Prize], flags)
		dst = append(dst, r.Salt[:]...)
		dst = c.appendBoard(dst, &r.Unit.B1)
		if r.Unit.HasB2 {
			dst = c.appendBoard(dst, &r.Unit.B2)
		}
	}
	return dst
}

// decodeRecord reads the record of the unit at block index index from the start of rec, and
// returns how many bytes it took.
func (c *codec) decodeRecord(rec []byte, index int, r *audit.Record) (int, error) {
	if len(rec) < headSize || int(rec[0]) >= len(c.tiers) || rec[1]&^flagB2 != 0 {
		return 0, fmt.Errorf("corrupt record of unit %d", index)
	}
	r.Index, r.Prize = index, c.tiers[rec[0]]
	copy(r.Salt[:], rec[2:headSize])
	n1, err := c.decodeBoard(rec[headSize:], &r.Unit.B1)
	if err != nil {
		return 0, fmt.Errorf("corrupt board 1 of unit %d: %v", index, err)
	}
	r.Unit.HasB2 = rec[1]&flagB2 != 0
	if !r.Unit.HasB2 {
		r.Unit.B2 = rules.Board{}
		return headSize + n1, nil
	}
	n2, err := c.decodeBoard(rec[headSize+n1:], &r.Unit.B2)
	if err != nil {
		return 0, fmt.Errorf("corrupt board 2 of unit %d: %v", index, err)
	}
	return headSize + n1 + n2, nil
}

// offset is where the record of unit j of a page holding n units starts.
func offset(page []byte, n, j int) (int, error) {
	if len(page) < offsetSize*n {
		return 0, fmt.Errorf("corrupt page: %d units in %d bytes", n, len(page))
	}
	off := int(binary.LittleEndian.Uint16(page[offsetSize*j:]))
	if off < offsetSize*n || off >= len(page) {
		return 0, fmt.Errorf("corrupt page: unit %d at offset %d of %d", j, off, len(page))
	}
	return off, nil
}

// decodeUnit reads unit j of a page holding n units; first is the block index of its unit 0.
func (c *codec) decodeUnit(page []byte, n, j, first int, r *audit.Record) error {
	if j < 0 || j >= n {
		return fmt.Errorf("corrupt page: no unit %d of %d", j, n)
	}
	off, err := offset(page, n, j)
	if err != nil {
		return err
	}
	_, err = c.decodeRecord(page[off:], first+j, r)
	return err
}

// decodePage reads every unit of a page holding n units.
func (c *codec) decodePage(page []byte, n, first int, recs []audit.Record) error {
	off, err := offset(page, n, 0)
	if err != nil {
		return err
	}
	for j := range n {
		if want, err := offset(page, n, j); err != nil || want != off {
			return fmt.Errorf("corrupt page: unit %d is not where its offset says", first+j)
		}
		size, err := c.decodeRecord(page[off:], first+j, &recs[j])
		if err != nil {
			return err
		}
		off += size
	}
	if off != len(page) {
		return fmt.Errorf("corrupt page: %d bytes left over", len(page)-off)
	}
	return nil
}
