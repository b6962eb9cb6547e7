package ledgermark

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"starcolor/internal/journal"
	"starcolor/internal/lottery"
)

var key = &journal.AccountKey{1, 2, 3}

func sample() *Mark {
	m := &Mark{
		Watermark: lottery.Watermark{Games: 1000, Transfers: 2500, Changes: 3, Schema: "42"},
		Books: &lottery.BooksMark{Changes: 3, Games: 1000, Transfers: 2500, Stakes: 150_000, Prizes: 100_000,
			Accounts: []lottery.AccountMark{{ID: 1, Balance: -5000}, {ID: 3, Player: 1, Balance: 5000, Staked: 700, Played: 5, ExpiredThrough: 9, Expired: 200}},
			Blocks:   []lottery.BlockMark{{Emission: "E1", Block: 0, Sold: 1000, Top: 1000, Prizes: 70_000, Winners: 300}},
			Hours:    []lottery.HourMark{{Hour: "2026-12-04T10", Price: 100, Units: 10, Stakes: 1000, Prizes: 700, Winners: 3, TopPrize: 500}}},
		Units:   &lottery.UnitsMark{Blocks: []lottery.VerifiedBlock{{Emission: "E1", Block: 0, Root: bytes.Repeat([]byte{7}, 32)}}},
		Journal: &journal.Mark{Games: 1000, Transfers: 2500, Size: 3600, Checkpoint: 3500},
	}
	m.Journal.Expected.Games = []int64{998}
	return m
}

// A mark read back is the mark written; a byte changed, or another key, is refused.
func TestEncodeParse(t *testing.T) {
	want := sample()
	b, err := Encode(key, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b, key)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, wrote %+v", got, want)
	}
	if _, err := Parse(b, &journal.AccountKey{9}); err == nil || !strings.Contains(err.Error(), "MAC") {
		t.Fatalf("another key: %v", err)
	}
	for _, at := range []int{0, len(header) + 3, len(b) - 1, len(b) / 2} {
		changed := bytes.Clone(b)
		changed[at] ^= 1
		if _, err := Parse(changed, key); err == nil {
			t.Errorf("byte %d changed: read", at)
		}
	}
}

// FuzzParse: whatever the bytes, Parse returns a whole mark or an error; a body carrying its
// right MAC reaches the decoder.
func FuzzParse(f *testing.F) {
	var buf bytes.Buffer
	b, err := Encode(key, sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, false)
	f.Add(b[len(header)+65:], true)
	f.Add([]byte(header+"00\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, sign bool) {
		if sign {
			mac, err := sum(key, data)
			if err != nil {
				t.Fatal(err)
			}
			buf.Reset()
			fmt.Fprintf(&buf, "%s%x\n", header, mac)
			buf.Write(data)
			data = buf.Bytes()
		}
		m, err := Parse(data, key)
		if err == nil && (m.Books == nil || m.Units == nil || m.Journal == nil) {
			t.Fatal("a mark without its parts")
		}
	})
}
