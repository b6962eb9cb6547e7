package journal

import (
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// The tree is stored as tiles (tlog.Tile, as Go's checksum database serves its own): a tile of
// height TileHeight holds 256 hashes of one level, and the levels between two tiles' are
// hashed again from them when read. That is one row for 256 entries, 32.1 bytes an entry, where
// a row a stored hash was 2 rows and 83 bytes an entry (docs/PERFORMANCE.md).
//
// A store keeps a tile by its level and number (t.L, t.N), with its hashes from the first. The
// tile at the tree's right edge is partial: it is stored again, wider, as the tree grows, and
// only ever extended (the stores' triggers refuse any other change). A tile of width W is thus
// the first W hashes of what is stored.

// TileHeight is the height of the stored tiles: 2^8 = 256 hashes a tile.
const TileHeight = 8

// TileReader reads stored tiles: for each tile asked, its stored hashes, at least t.W of them
// (a stored tile may be wider than asked).
type TileReader func(tiles []tlog.Tile) ([][]byte, error)

// TileHashes is a tlog.HashReader of the tree's stored hashes (tlog.StoredHashIndex) over its
// stored tiles: each tile is read once a call, as wide as the widest hash asked of it needs.
func TileHashes(read TileReader) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		type coord struct {
			l int
			n int64
		}
		at := map[coord]int{} // a tile's place in tiles
		var tiles []tlog.Tile
		for _, x := range indexes {
			t := tlog.TileForIndex(TileHeight, x)
			c := coord{t.L, t.N}
			if i, ok := at[c]; ok {
				tiles[i].W = max(tiles[i].W, t.W)
				continue
			}
			at[c] = len(tiles)
			tiles = append(tiles, t)
		}
		data, err := read(tiles)
		if err != nil {
			return nil, err
		}
		if len(data) != len(tiles) {
			return nil, fmt.Errorf("journal: read %d tiles, want %d", len(data), len(tiles))
		}
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			t := tlog.TileForIndex(TileHeight, x)
			j := at[coord{t.L, t.N}]
			if out[i], err = tlog.HashFromTile(tiles[j], data[j], x); err != nil {
				return nil, fmt.Errorf("journal: the tree's tile %s: %w", tiles[j].Path(), err)
			}
		}
		return out, nil
	})
}

// CheckTiles checks that tiles are those that the entries from to to-1 complete or extend
// (tlog.NewTiles), each with as many hashes as its width: what a store accepts of
// AddJournalTiles.
func CheckTiles(from, to int64, tiles []tlog.Tile, data [][]byte) error {
	want := tlog.NewTiles(TileHeight, from, to)
	if len(tiles) != len(want) || len(data) != len(tiles) {
		return fmt.Errorf("journal: entries %d to %d complete or extend %d tiles, not %d (%d with data)", from, to-1, len(want), len(tiles), len(data))
	}
	for i, t := range tiles {
		if t != want[i] {
			return fmt.Errorf("journal: entries %d to %d: tile %d is %s, not %s", from, to-1, i, t.Path(), want[i].Path())
		}
		if len(data[i]) != t.W*tlog.HashSize {
			return fmt.Errorf("journal: tile %s holds %d bytes, not %d", t.Path(), len(data[i]), t.W*tlog.HashSize)
		}
	}
	return nil
}
