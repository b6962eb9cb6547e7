package audit

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"starcolor/internal/rules"
)

// Real lines of an export (emission.Build at 1 EUR), used as typical inputs.
const (
	// An Extra stage: board 1 reveals 0X and 0$100, board 2 reveals nothing.
	lineB2 = `{"i":23,"prize":100,"salt":"67ee67c152bee61ddb606ef1243649f3","b1":"4 5 3 3 5 2 4 0 0 5 4 1 2 1 0 3 0 5 3 3 0$100 4X 5 2 2 2 4 5 3 0F 2 0 1 1 1 1 4 5 2 3 1 4","b2":"3 4 2 5 0 1 3 3 0 4 5 0 1 0 1 4 5 4 1 3 2 0 4 1 3 3 0 5 2 5 0 1 2 3 1 5 4 2 2 5 4 2"}`
	// A composite tier: 12 EUR as three amounts of 4 EUR, a supernova among them.
	lineTypical = `{"i":8,"prize":1200,"salt":"a353eba6999b1b52048b5cd20e7ad8f9","b1":"2 4 3 1 4 0$400 3 4 5 0 0 0$400 1 1 5 0 5 2 2 4 1 1 4 5 2 5 1 3 0N2 0 3 3 2$400 5 4 2 2 3 3 4 5 1"}`
	// A losing unit.
	lineLosing = `{"i":0,"prize":0,"salt":"8e63ca4b4db01627105e3b9f3d7fc8f3","b1":"5 0 5 0 3 4 1 4 2 5 0 0 3 1 2 4 4 2 0 1 2 3 1 3 5 3 0 2 3 4 2 2 1 5 3 0 5 5 4 1 4 1"}`
)

// exampleBoard starts with the example of docs/spec/RULES.md §8 and uses every kind of token; it is only
// syntax (7 stars per colour, but not a board the rules would accept).
const exampleBoard = "0$400 3 5M 2N4 1R 0X " +
	"4F 2$123456789012345 5N0 1N5 3$1 0 " +
	"1 2 3 4 5 0M 1F 2R 3N3 4$2000000 5 " +
	"0 1 2 3 4 5 0 1 2 3 4 5 " +
	"1 2 3 4 5 4 0"

func TestParseBoardExample(t *testing.T) {
	b, err := ParseBoard(exampleBoard)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]rules.Star{
		0:  {Color: 0, Kind: rules.Amount, Amount: 400},
		1:  {Color: 3},
		2:  {Color: 5, Kind: rules.MilkyWay},
		3:  {Color: 2, Kind: rules.Supernova, Target: 4},
		4:  {Color: 1, Kind: rules.ShootingStar, Rising: true},
		5:  {Color: 0, Kind: rules.Extra},
		6:  {Color: 4, Kind: rules.ShootingStar, Rising: false},
		7:  {Color: 2, Kind: rules.Amount, Amount: 123456789012345},
		8:  {Color: 5, Kind: rules.Supernova, Target: 0},
		9:  {Color: 1, Kind: rules.Supernova, Target: 5},
		10: {Color: 3, Kind: rules.Amount, Amount: 1},
		11: {Color: 0},
		40: {Color: 4},
		41: {Color: 0},
	}
	for cell, s := range want {
		if b[cell] != s {
			t.Errorf("cell %d: %+v, want %+v", cell, b[cell], s)
		}
	}
	if err := b.Check(); err != nil {
		t.Errorf("the example board should have 7 stars of each colour: %v", err)
	}
	if got := string(AppendBoard(nil, &b)); got != exampleBoard {
		t.Errorf("re-encoded board differs:\n got %s\nwant %s", got, exampleBoard)
	}
}

func TestLineRoundTripExample(t *testing.T) {
	b, err := ParseBoard(exampleBoard)
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Index: 999999, Prize: 2000000, Unit: rules.Unit{B1: b, HasB2: true, B2: b}}
	for i := range r.Salt {
		r.Salt[i] = byte(0xf0 + i)
	}
	line := AppendLine(nil, &r)
	want := `{"i":999999,"prize":2000000,"salt":"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff","b1":"` + exampleBoard + `","b2":"` + exampleBoard + `"}`
	if string(line) != want {
		t.Fatalf("AppendLine:\n got %s\nwant %s", line, want)
	}
	checkRoundTrip(t, &r)
	r.Unit.HasB2, r.Unit.B2 = false, rules.Board{}
	checkRoundTrip(t, &r)
}

// checkRoundTrip encodes r, parses it back to the same record and re-encodes it to the same bytes.
func checkRoundTrip(t *testing.T, r *Record) {
	t.Helper()
	line := AppendLine(nil, r)
	got, err := ParseLine(line)
	if err != nil {
		t.Fatalf("ParseLine(%s): %v", line, err)
	}
	if got != *r {
		t.Fatalf("ParseLine(AppendLine(r)) != r for %s:\n got %+v\nwant %+v", line, got, *r)
	}
	if again := AppendLine(nil, &got); !bytes.Equal(again, line) {
		t.Fatalf("re-encoding differs:\n got %s\nwant %s", again, line)
	}
}

func TestLineRoundTripRealLines(t *testing.T) {
	for _, line := range []string{lineB2, lineTypical, lineLosing} {
		r, err := ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("ParseLine(%s): %v", line, err)
		}
		if got := string(AppendLine(nil, &r)); got != line {
			t.Errorf("re-encoding differs:\n got %s\nwant %s", got, line)
		}
		if err := r.Unit.B1.Check(); err != nil {
			t.Errorf("board 1 of %s: %v", line, err)
		}
	}
	r, _ := ParseLine([]byte(lineB2))
	if r.Index != 23 || r.Prize != 100 || !r.Unit.HasB2 || r.Salt[0] != 0x67 || r.Salt[15] != 0xf3 {
		t.Errorf("fields of the Extra line: %+v", r)
	}
	if s := r.Unit.B1[21]; s != (rules.Star{Color: 4, Kind: rules.Extra}) {
		t.Errorf("b1 cell 21 = %+v, want 4X", s)
	}
	if s := r.Unit.B1[29]; s != (rules.Star{Color: 0, Kind: rules.ShootingStar}) {
		t.Errorf("b1 cell 29 = %+v, want 0F", s)
	}
	r, _ = ParseLine([]byte(lineLosing))
	if r.Unit.HasB2 || r.Unit.B2 != (rules.Board{}) {
		t.Errorf("a line without b2 parsed with a board 2: %+v", r.Unit)
	}
}

// randomRecord makes a record that is well formed for the syntax (not for the rules).
func randomRecord(rng *rand.Rand) Record {
	var r Record
	switch rng.IntN(3) {
	case 0:
		r.Index = rng.IntN(10)
	case 1:
		r.Index = rng.IntN(1_000_000)
	default:
		r.Index = rng.IntN(1e15)
	}
	if rng.IntN(2) == 0 {
		r.Prize = rng.Int64N(1e15)
	}
	for i := range r.Salt {
		r.Salt[i] = byte(rng.Uint32())
	}
	board := func(b *rules.Board) {
		for i := range b {
			s := rules.Star{Color: rules.Color(rng.IntN(rules.NumColors))}
			switch rng.IntN(7) {
			case 1:
				s.Kind = rules.Amount
				s.Amount = 1 + rng.Int64N([]int64{9, 1e6, 1e15 - 1}[rng.IntN(3)])
			case 2:
				s.Kind = rules.MilkyWay
			case 3:
				s.Kind, s.Target = rules.Supernova, rules.Color(rng.IntN(rules.NumColors))
			case 4:
				s.Kind, s.Rising = rules.ShootingStar, rng.IntN(2) == 0
			case 5:
				s.Kind = rules.Extra
			}
			b[i] = s
		}
	}
	board(&r.Unit.B1)
	if rng.IntN(2) == 0 {
		r.Unit.HasB2 = true
		board(&r.Unit.B2)
	}
	return r
}

func TestLineRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		r := randomRecord(rng)
		checkRoundTrip(t, &r)
	}
}

func TestLineLimits(t *testing.T) {
	// 15 digits are accepted everywhere a number is; 16 are not.
	ok := Record{Index: 999999999999999, Prize: 999999999999999}
	ok.Unit.B1[0] = rules.Star{Kind: rules.Amount, Amount: 999999999999999}
	checkRoundTrip(t, &ok)
	for _, r := range []Record{
		{Index: 1e15},
		{Prize: 1e15},
	} {
		if _, err := ParseLine(AppendLine(nil, &r)); !errors.Is(err, ErrSyntax) {
			t.Errorf("16-digit number in %s: err = %v, want ErrSyntax", AppendLine(nil, &r), err)
		}
	}
	big := Record{}
	big.Unit.B1[5] = rules.Star{Kind: rules.Amount, Amount: 1e15}
	if _, err := ParseLine(AppendLine(nil, &big)); !errors.Is(err, ErrSyntax) {
		t.Errorf("16-digit amount: err = %v, want ErrSyntax", err)
	}
}

// mutate applies one textual change to a valid line and fails the test if it changes nothing,
// so that every malformed case really differs from the valid line.
func mutate(t testing.TB, line, old, new string) string {
	t.Helper()
	if !strings.Contains(line, old) {
		t.Fatalf("mutation %q → %q: %q is not in the line", old, new, old)
	}
	return strings.Replace(line, old, new, 1)
}

func malformedLines(t testing.TB) []struct{ name, line string } {
	base := lineB2
	const (
		salt = "67ee67c152bee61ddb606ef1243649f3"
		b1   = "4 5 3 3 5 2 4 0 0 5 4 1 2 1 0 3 0 5 3 3 0$100 4X 5 2 2 2 4 5 3 0F 2 0 1 1 1 1 4 5 2 3 1 4"
		b2   = "3 4 2 5 0 1 3 3 0 4 5 0 1 0 1 4 5 4 1 3 2 0 4 1 3 3 0 5 2 5 0 1 2 3 1 5 4 2 2 5 4 2"
	)
	m := func(old, new string) string { return mutate(t, base, old, new) }
	return []struct{ name, line string }{
		{"empty", ""},
		{"only braces", "{}"},
		{"index leading zero", m(`{"i":23`, `{"i":023`)},
		{"index 00", m(`{"i":23`, `{"i":00`)},
		{"index negative", m(`{"i":23`, `{"i":-23`)},
		{"index plus sign", m(`{"i":23`, `{"i":+23`)},
		{"index 16 digits", m(`{"i":23`, `{"i":1234567890123456`)},
		{"index string", m(`{"i":23`, `{"i":"23"`)},
		{"index missing", m(`{"i":23`, `{"i":`)},
		{"prize leading zero", m(`"prize":100`, `"prize":0100`)},
		{"prize decimal", m(`"prize":100`, `"prize":100.0`)},
		{"prize exponent", m(`"prize":100`, `"prize":1e2`)},
		{"prize negative", m(`"prize":100`, `"prize":-100`)},
		{"prize string", m(`"prize":100`, `"prize":"100"`)},
		{"prize null", m(`"prize":100`, `"prize":null`)},
		{"salt upper-case hex", m(salt, strings.ToUpper(salt))},
		{"salt one upper-case digit", m(salt, "67EE67c152bee61ddb606ef1243649f3")},
		{"salt 31 digits", m(salt, salt[:31])},
		{"salt 33 digits", m(salt, salt+"0")},
		{"salt not hex", m(salt, "g"+salt[1:])},
		{"salt empty", m(salt, "")},
		{"amount leading zero", m("0$100", "0$0100")},
		{"amount $0", m("0$100", "0$0")},
		{"amount $ alone", m("0$100", "0$")},
		{"amount negative", m("0$100", "0$-100")},
		{"amount decimal", m("0$100", "0$1.00")},
		{"amount 16 digits", m("0$100", "0$1000000000000000")},
		{"b1 41 tokens", m(b1, b1[:len(b1)-2])},
		{"b1 43 tokens", m(b1, b1+" 4")},
		{"b2 41 tokens", m(b2, b2[:len(b2)-2])},
		{"b2 43 tokens", m(b2, b2+" 2")},
		{"b1 no tokens", m(b1, "")},
		{"double space", m("4 5 3 3", "4  5 3 3")},
		{"tab", m("4 5 3 3", "4\t5 3 3")},
		{"leading space in board", m(`"b1":"4 5`, `"b1":" 4 5`)},
		{"trailing space in board", m(`1 4","b2"`, `1 4 ","b2"`)},
		{"colour 6", m(`"b1":"4 5`, `"b1":"6 5`)},
		{"colour 9", m(`"b1":"4 5`, `"b1":"9 5`)},
		{"colour letter", m(`"b1":"4 5`, `"b1":"a 5`)},
		{"colour missing", m("0$100", "$100")},
		{"colour two digits", m(`"b1":"4 5`, `"b1":"44 5`)},
		{"supernova N6", m("0F", "0N6")},
		{"supernova N alone", m("0F", "0N")},
		{"supernova N letter", m("0F", "0NX")},
		{"supernova two digits", m("0F", "0N12")},
		{"unknown letter Q", m("0F", "0Q")},
		{"lower-case f", m("0F", "0f")},
		{"lower-case x", m("4X", "4x")},
		{"lower-case m", m("0F", "0m")},
		{"two contents", m("4X", "4XM")},
		{"content then digit", m("4X", "4X1")},
		{"unicode escape in board", m(`"b1":"4 5`, `"b1":"\u0034 5`)},
		{"trailing newline", base + "\n"},
		{"trailing CR", base + "\r"},
		{"trailing space", base + " "},
		{"trailing bytes", base + "{}"},
		{"leading space", " " + base},
		{"byte order mark", "\ufeff" + base},
		{"missing closing brace", base[:len(base)-1]},
		{"missing closing quote", base[:len(base)-2] + "}"},
		{"cut in the middle", base[:len(base)/2]},
		{"keys in another order: prize first", m(`{"i":23,"prize":100,`, `{"prize":100,"i":23,`)},
		{"keys in another order: salt before prize", m(`"prize":100,"salt":"`+salt+`"`, `"salt":"`+salt+`","prize":100`)},
		{"keys in another order: b2 before b1", `{"i":23,"prize":100,"salt":"` + salt + `","b2":"` + b2 + `","b1":"` + b1 + `"}`},
		{"space after colon", m(`{"i":23`, `{"i": 23`)},
		{"spaces after every colon", strings.ReplaceAll(base, `":`, `": `)},
		{"space after comma", m(`,"prize"`, `, "prize"`)},
		{"space before colon", m(`"i":`, `"i" :`)},
		{"pretty printed", m(`{"i"`, "{\n  \"i\"")},
		{"single quotes", strings.ReplaceAll(base, `"`, `'`)},
		{"extra key", base[:len(base)-1] + `,"x":1}`},
		{"duplicate key", m(`{"i":23,`, `{"i":23,"i":23,`)},
		{"b2 empty", m(`"b2":"`+b2+`"`, `"b2":""`)},
		{"b2 null", m(`"b2":"`+b2+`"`, `"b2":null`)},
		{"b1 missing", m(`"b1":"`+b1+`",`, ``)},
		{"salt missing", m(`"salt":"`+salt+`",`, ``)},
		{"NUL byte", m("4 5 3 3", "4 5\x003 3")},
		{"non-ASCII digit", m(`{"i":23`, `{"i":２3`)},
	}
}

func TestParseLineRejectsMalformed(t *testing.T) {
	if _, err := ParseLine([]byte(lineB2)); err != nil {
		t.Fatalf("the base line must parse: %v", err)
	}
	for _, c := range malformedLines(t) {
		r, err := ParseLine([]byte(c.line))
		if err == nil {
			t.Errorf("%s: accepted %q as %+v", c.name, c.line, r)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: err = %v, want ErrSyntax", c.name, err)
		}
	}
}

func TestParseBoardRejectsMalformed(t *testing.T) {
	tokens := strings.Fields(exampleBoard)
	join := func(ts []string) string { return strings.Join(ts, " ") }
	with := func(cell int, tok string) string {
		ts := append([]string(nil), tokens...)
		ts[cell] = tok
		return join(ts)
	}
	cases := []struct{ name, board string }{
		{"empty", ""},
		{"41 tokens", join(tokens[:41])},
		{"43 tokens", join(append(append([]string(nil), tokens...), "0"))},
		{"double space", strings.Replace(exampleBoard, " ", "  ", 1)},
		{"leading space", " " + exampleBoard},
		{"trailing space", exampleBoard + " "},
		{"trailing quote", exampleBoard + `"`},
		{"newline", exampleBoard + "\n"},
		{"colour 6", with(1, "6")},
		{"N6", with(3, "2N6")},
		{"N", with(3, "2N")},
		{"$0", with(0, "0$0")},
		{"$", with(0, "0$")},
		{"$ leading zero", with(0, "0$0400")},
		{"unknown letter", with(2, "5Z")},
		{"two contents", with(2, "5MR")},
	}
	for _, c := range cases {
		b, err := ParseBoard(c.board)
		if err == nil {
			t.Errorf("%s: accepted %q as %v", c.name, c.board, b)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: err = %v, want ErrSyntax", c.name, err)
		}
	}
}

// checkParsedRecord checks what any parsed record must satisfy: valid colours, positive amounts,
// no board 2 unless announced.
func checkParsedRecord(t *testing.T, r *Record) {
	t.Helper()
	boards := []*rules.Board{&r.Unit.B1}
	if r.Unit.HasB2 {
		boards = append(boards, &r.Unit.B2)
	} else if r.Unit.B2 != (rules.Board{}) {
		t.Fatalf("no b2 in the line but a board 2 in the record")
	}
	for _, b := range boards {
		for i, s := range b {
			if !s.Color.Valid() || (s.Kind == rules.Supernova && !s.Target.Valid()) || (s.Kind == rules.Amount) != (s.Amount > 0) {
				t.Fatalf("cell %d parsed as %+v", i, s)
			}
		}
	}
	if r.Index < 0 || r.Prize < 0 {
		t.Fatalf("negative index or prize: %+v", r)
	}
}

func FuzzParseLine(f *testing.F) {
	for _, l := range []string{lineB2, lineTypical, lineLosing} {
		f.Add([]byte(l))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		r := randomRecord(rng)
		f.Add(AppendLine(nil, &r))
	}
	for _, c := range malformedLines(f) {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseLine(line)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v is not ErrSyntax", err)
			}
			return
		}
		checkParsedRecord(t, &r)
		if again := AppendLine(nil, &r); !bytes.Equal(again, line) {
			t.Fatalf("accepted a line that is not canonical:\n  in %q\n out %q", line, again)
		}
	})
}

func FuzzParseBoard(f *testing.F) {
	f.Add(exampleBoard)
	f.Add("0$400 3 5M 2N4 1R 0X")
	f.Add(strings.Repeat("0 ", 41) + "0")
	for _, l := range []string{lineB2, lineTypical, lineLosing} {
		r, _ := ParseLine([]byte(l))
		f.Add(string(AppendBoard(nil, &r.Unit.B1)))
	}
	f.Add(strings.Replace(exampleBoard, "0$400", "0$0400", 1))
	f.Add(exampleBoard + " ")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBoard(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v is not ErrSyntax", err)
			}
			return
		}
		r := Record{Unit: rules.Unit{B1: b}}
		checkParsedRecord(t, &r)
		if again := string(AppendBoard(nil, &b)); again != s {
			t.Fatalf("accepted a board that is not canonical:\n  in %q\n out %q", s, again)
		}
	})
}

func BenchmarkParseLine(b *testing.B) {
	line := []byte(lineTypical)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseLine(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendLine(b *testing.B) {
	r, err := ParseLine([]byte(lineTypical))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(lineTypical)))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = AppendLine(buf[:0], &r)
	}
}
