package audit

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
)

// The reference implementation of RFC 6962 these tests compare with.
var ref = rfc6962.DefaultHasher

func leafData(i int) []byte { return fmt.Appendf(nil, `{"i":%d,"prize":0}`, i) }

func testLeaves(n int) []Hash {
	leaves := make([]Hash, n)
	for i := range leaves {
		leaves[i] = LeafHash(leafData(i))
	}
	return leaves
}

// refRoot computes the root of n leaves with the reference's compact range.
func refRoot(t testing.TB, leaves []Hash) []byte {
	t.Helper()
	rf := compact.RangeFactory{Hash: ref.HashChildren}
	r := rf.NewEmptyRange(0)
	for i := range leaves {
		if err := r.Append(slices.Clone(leaves[i][:]), nil); err != nil {
			t.Fatal(err)
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func toSlices(path []Hash) [][]byte {
	out := make([][]byte, len(path))
	for i := range path {
		out[i] = slices.Clone(path[i][:])
	}
	return out
}

func fromSlices(t testing.TB, path [][]byte) []Hash {
	t.Helper()
	out := make([]Hash, len(path))
	for i, p := range path {
		if len(p) != len(out[i]) {
			t.Fatalf("reference path element of %d bytes", len(p))
		}
		copy(out[i][:], p)
	}
	return out
}

func TestHashesMatchRFC6962(t *testing.T) {
	// Known values: RFC 6962 hash of an empty tree and of an empty leaf.
	if got := hex.EncodeToString(ref.EmptyRoot()); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("reference empty root %s", got)
	}
	empty := Root(nil)
	if !bytes.Equal(empty[:], ref.EmptyRoot()) {
		t.Errorf("Root(nil) = %x, want the RFC 6962 empty root %x", empty, ref.EmptyRoot())
	}
	leaf := LeafHash(nil)
	if got := hex.EncodeToString(leaf[:]); got != "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d" {
		t.Errorf("LeafHash(empty) = %s", got)
	}
	for _, data := range [][]byte{nil, {0}, {1}, []byte(lineTypical), []byte(lineB2), bytes.Repeat([]byte{0xff}, 1000)} {
		got := LeafHash(data)
		if want := ref.HashLeaf(data); !bytes.Equal(got[:], want) {
			t.Errorf("LeafHash(%.20q) = %x, want %x", data, got, want)
		}
		other := LeafHash(append(slices.Clone(data), 'x'))
		node := NodeHash(got, other)
		if want := ref.HashChildren(got[:], other[:]); !bytes.Equal(node[:], want) {
			t.Errorf("NodeHash = %x, want %x", node, want)
		}
		if node == NodeHash(other, got) {
			t.Errorf("NodeHash is symmetric")
		}
	}
}

func referenceSizes() []int {
	var sizes []int
	for n := 1; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	return append(sizes, 1000, 1024, 1025, 4097)
}

// indexesToTest is every index, or under -short, for trees over 300 leaves, a sample that keeps
// both ends, the neighbourhood of every power of two and a stride through the middle.
func indexesToTest(n int) []int {
	if !testing.Short() || n <= 300 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	set := map[int]bool{}
	for i := range 20 {
		set[i], set[n-1-i] = true, true
	}
	for p := 1; p < n; p *= 2 {
		for d := -2; d <= 2; d++ {
			if p+d >= 0 && p+d < n {
				set[p+d] = true
			}
		}
	}
	for i := 0; i < n; i += 97 {
		set[i] = true
	}
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

func TestRootAndProofMatchReference(t *testing.T) {
	for _, n := range referenceSizes() {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			leaves := testLeaves(n)
			tree := testonly.New(ref)
			for i := range n {
				tree.AppendData(leafData(i))
			}
			if got, want := Root(leaves), refRoot(t, leaves); !bytes.Equal(got[:], want) {
				t.Fatalf("Root of %d leaves = %x, compact range gives %x", n, got, want)
			}
			root := Root(leaves)
			if !bytes.Equal(root[:], tree.Hash()) {
				t.Fatalf("Root of %d leaves = %x, reference tree gives %x", n, root, tree.Hash())
			}
			for _, i := range indexesToTest(n) {
				path := Proof(leaves, i)
				want, err := tree.InclusionProof(uint64(i), uint64(n))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(toSlices(path), want, bytes.Equal) {
					t.Fatalf("Proof(%d of %d) has %d hashes, differs from the reference's %d", i, n, len(path), len(want))
				}
				if err := proof.VerifyInclusion(ref, uint64(i), uint64(n), leaves[i][:], toSlices(path), root[:]); err != nil {
					t.Fatalf("reference rejects Proof(%d of %d): %v", i, n, err)
				}
				if err := VerifyProof(leaves[i], i, n, fromSlices(t, want), root); err != nil {
					t.Fatalf("VerifyProof rejects the reference proof of %d of %d: %v", i, n, err)
				}
			}
		})
	}
}

func TestProofOutOfRange(t *testing.T) {
	leaves := testLeaves(5)
	for _, m := range []int{-1, 5, 100} {
		if p := Proof(leaves, m); p != nil {
			t.Errorf("Proof(leaves, %d) = %x, want nil", m, p)
		}
	}
	if p := Proof(leaves[:1], 0); len(p) != 0 {
		t.Errorf("the proof in a one-leaf tree should be empty, got %x", p)
	}
	if err := VerifyProof(leaves[0], 0, 1, nil, leaves[0]); err != nil {
		t.Errorf("one-leaf tree: %v", err)
	}
	root := Root(leaves)
	for _, c := range []struct{ index, size int }{{-1, 5}, {5, 5}, {6, 5}, {0, 0}, {0, -1}} {
		if err := VerifyProof(leaves[0], c.index, c.size, Proof(leaves, 0), root); !errors.Is(err, ErrProof) {
			t.Errorf("VerifyProof(index %d, size %d) = %v, want ErrProof", c.index, c.size, err)
		}
	}
}

// pathLen is the length of the audit path of leaf i in a tree of m leaves (RFC 6962 §2.1.1).
func pathLen(i, m int) int {
	n := 0
	for m > 1 {
		k := 1
		for 2*k < m {
			k *= 2
		}
		if i < k {
			m = k
		} else {
			i, m = i-k, m-k
		}
		n++
	}
	return n
}

func flipBit(h Hash, bit int) Hash {
	h[bit/8%len(h)] ^= 1 << (bit % 8)
	return h
}

func TestVerifyProofRejects(t *testing.T) {
	sizes := []int{}
	for n := 1; n <= 70; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 255, 256, 257, 1000, 1025)
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			leaves := testLeaves(n)
			root := Root(leaves)
			indexes := indexesToTest(n)
			if n > 70 {
				indexes = []int{0, 1, n / 2, n - 2, n - 1}
			}
			reject := func(what string, leaf Hash, index, size int, path []Hash, root Hash) {
				t.Helper()
				if err := VerifyProof(leaf, index, size, path, root); err == nil {
					t.Fatalf("%s: accepted", what)
				} else if !errors.Is(err, ErrProof) {
					t.Fatalf("%s: %v is not ErrProof", what, err)
				}
			}
			for _, i := range indexes {
				path := Proof(leaves, i)
				if err := VerifyProof(leaves[i], i, n, path, root); err != nil {
					t.Fatalf("right proof of %d of %d rejected: %v", i, n, err)
				}
				// A flipped bit anywhere: in the leaf, in each path element, in the root.
				reject(fmt.Sprintf("leaf %d with a flipped bit", i), flipBit(leaves[i], 3), i, n, path, root)
				reject(fmt.Sprintf("leaf %d: root with a flipped bit", i), leaves[i], i, n, path, flipBit(root, 200))
				for k := range path {
					bad := slices.Clone(path)
					bad[k] = flipBit(bad[k], 37*k+5)
					reject(fmt.Sprintf("leaf %d: path[%d] with a flipped bit", i, k), leaves[i], i, n, bad, root)
				}
				// Another leaf's hash with this proof.
				if n > 1 {
					reject(fmt.Sprintf("leaf %d's proof for leaf %d", i, (i+1)%n), leaves[(i+1)%n], i, n, path, root)
				}
				// Truncated and extended paths.
				if len(path) > 0 {
					reject(fmt.Sprintf("leaf %d: last hash dropped", i), leaves[i], i, n, path[:len(path)-1], root)
					reject(fmt.Sprintf("leaf %d: first hash dropped", i), leaves[i], i, n, path[1:], root)
					reject(fmt.Sprintf("leaf %d: empty path", i), leaves[i], i, n, nil, root)
				}
				reject(fmt.Sprintf("leaf %d: one hash too many", i), leaves[i], i, n, append(slices.Clone(path), root), root)
				reject(fmt.Sprintf("leaf %d: one hash too many (a leaf)", i), leaves[i], i, n, append(slices.Clone(path), leaves[0]), root)
				// Every wrong index.
				for j := range n {
					if j != i {
						reject(fmt.Sprintf("proof of %d of %d given index %d", i, n, j), leaves[i], j, n, path, root)
					}
				}
				// Wrong sizes: the answer must be the reference's. A size that gives the leaf
				// the same position and path shape leads to the same root, and both accept it
				// (RFC 9162 §2.1.3.2 checks the path, not the size); every other is rejected.
				for m := i + 1; m <= 2*n+2; m++ {
					if m == n {
						continue
					}
					refErr := proof.VerifyInclusion(ref, uint64(i), uint64(m), leaves[i][:], toSlices(path), root[:])
					err := VerifyProof(leaves[i], i, m, path, root)
					if (err == nil) != (refErr == nil) {
						t.Fatalf("proof of %d of %d given size %d: VerifyProof says %v, the reference %v", i, n, m, err, refErr)
					}
					if err != nil && !errors.Is(err, ErrProof) {
						t.Fatalf("size %d: %v is not ErrProof", m, err)
					}
					if want := pathLen(i, m); want != len(path) && err == nil {
						t.Fatalf("proof of %d of %d accepted for size %d, whose proofs have %d hashes, not %d", i, n, m, want, len(path))
					}
				}
				reject(fmt.Sprintf("proof of %d of %d given size %d", i, n, 2*n+3), leaves[i], i, 2*n+3, path, root)
			}
		})
	}
	// The case that a size check must catch: index 2 of 3 has a one-hash path; in a tree of 4
	// leaves, index 2 needs two.
	leaves := testLeaves(3)
	root := Root(leaves)
	if err := VerifyProof(leaves[2], 2, 4, Proof(leaves, 2), root); !errors.Is(err, ErrProof) {
		t.Errorf("index 2 of 3 verified as index 2 of 4: %v", err)
	}
}

// pageRoots is the root of each aligned chunk of leaves, the last one possibly partial: what the
// emission stores per page.
func pageRoots(leaves []Hash, chunk int) []Hash {
	var out []Hash
	for start := 0; start < len(leaves); start += chunk {
		out = append(out, Root(leaves[start:min(start+chunk, len(leaves))]))
	}
	return out
}

func TestRootOverAlignedSubtrees(t *testing.T) {
	sizes := []int{1, 2, 3, 255, 256, 257, 511, 512, 513, 768, 1000, 4097, 65536, 65537, 100_000}
	if !testing.Short() {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			checkAlignedSubtrees(t, n)
		})
	}
	// The property needs aligned power-of-two chunks: chunks of 3 give another tree.
	leaves := testLeaves(10)
	if Root(pageRoots(leaves, 3)) == Root(leaves) {
		t.Errorf("chunks of 3 should not give the root of the leaves")
	}
}

func checkAlignedSubtrees(t *testing.T, n int) {
	leaves := testLeaves(n)
	root := Root(leaves)
	chunks := []int{1, 2, 4, 64, 256, 1024, 2048}
	if n > 100_000 {
		chunks = []int{256, 2048} // the emission's pages and the verifier's batches
	}
	for _, chunk := range chunks {
		pages := pageRoots(leaves, chunk)
		if got := Root(pages); got != root {
			t.Errorf("%d leaves: Root over chunks of %d = %x, Root over the leaves = %x", n, chunk, got, root)
		}
	}
	// A unit's proof as the emission builds it: the path inside its page, then the page's
	// path among the page roots, is the proof of the leaf in the whole tree.
	pages := pageRoots(leaves, 256)
	indexes := []int{0, 1, 255, 256, 257, n / 2, n - 257, n - 256, n - 1}
	if n > 100_000 {
		indexes = []int{257, n - 1} // each Proof over the whole tree hashes it all
	}
	for _, i := range indexes {
		if i < 0 || i >= n {
			continue
		}
		p := i / 256
		page := leaves[p*256 : min(p*256+256, n)]
		path := append(Proof(page, i%256), Proof(pages, p)...)
		if want := Proof(leaves, i); !slices.Equal(path, want) {
			t.Errorf("%d leaves, leaf %d: page proof + block proof differs from the proof in the whole tree", n, i)
		}
		if err := VerifyProof(leaves[i], i, n, path, root); err != nil {
			t.Errorf("%d leaves, leaf %d: %v", n, i, err)
		}
	}
}

func BenchmarkLeafHash(b *testing.B) {
	line := []byte(lineTypical)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		LeafHash(line)
	}
}

func BenchmarkRoot1M(b *testing.B) {
	leaves := testLeaves(1_000_000)
	b.ResetTimer()
	for b.Loop() {
		Root(leaves)
	}
}
