package audit

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/bits"
)

// Hash is a SHA-256 digest: a leaf, an interior node or a root.
type Hash = [sha256.Size]byte

// LeafHash is SHA-256(0x00 ‖ line), the RFC 6962 hash of a leaf.
func LeafHash(line []byte) Hash {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(line)
	var out Hash
	h.Sum(out[:0])
	return out
}

// NodeHash is SHA-256(0x01 ‖ left ‖ right), the RFC 6962 hash of an interior node.
func NodeHash(left, right Hash) Hash {
	var buf [1 + 2*sha256.Size]byte
	buf[0] = 1
	copy(buf[1:], left[:])
	copy(buf[1+sha256.Size:], right[:])
	return sha256.Sum256(buf[:])
}

// split is the largest power of two strictly below n (n ≥ 2).
func split(n int) int { return 1 << (bits.Len(uint(n-1)) - 1) }

// Root is the RFC 6962 Merkle Tree Hash over nodes taken as the tree's leaves in order. The nodes
// may be leaf hashes, or the roots of aligned power-of-two subtrees (all of one size but the last):
// such subtrees are nodes of the full tree, so the result is the same.
func Root(nodes []Hash) Hash {
	switch len(nodes) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return nodes[0]
	}
	k := split(len(nodes))
	return NodeHash(Root(nodes[:k]), Root(nodes[k:]))
}

// Proof is the RFC 6962 audit path of node m among nodes, nearest sibling first.
func Proof(nodes []Hash, m int) []Hash {
	if m < 0 || m >= len(nodes) {
		return nil
	}
	var path []Hash
	for len(nodes) > 1 {
		k := split(len(nodes))
		if m < k {
			path = append(path, Root(nodes[k:]))
			nodes = nodes[:k]
		} else {
			path = append(path, Root(nodes[:k]))
			nodes, m = nodes[k:], m-k
		}
	}
	// The walk above went from the root down; an audit path starts at the leaf.
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// ErrProof is returned when an inclusion proof does not lead to the root.
var ErrProof = errors.New("inclusion proof does not match the root")

// VerifyProof checks that leaf (a leaf hash) is at index in a tree of size leaves with the given
// root, following RFC 6962 (and RFC 9162 §2.1.3.2's iterative form).
func VerifyProof(leaf Hash, index, size int, path []Hash, root Hash) error {
	if index < 0 || index >= size {
		return fmt.Errorf("%w: index %d outside a tree of %d leaves", ErrProof, index, size)
	}
	fn, sn := index, size-1
	r := leaf
	for _, p := range path {
		if sn == 0 {
			return fmt.Errorf("%w: path is too long", ErrProof)
		}
		if fn&1 == 1 || fn == sn {
			r = NodeHash(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = NodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 || r != root {
		return ErrProof
	}
	return nil
}
