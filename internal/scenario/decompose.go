package scenario

import "slices"

// decompositions lists every way of writing total as a sum of exactly k amounts (k from 1 to
// maxParts), each a non-increasing list of amounts, indexed by k. The amounts are those a table
// allows under a star, so a composite tier's value never appears as a single part.
func decompositions(total int64, amounts []int64, maxParts int) [][][]int64 {
	byK := make([][][]int64, maxParts+1)
	desc := slices.Clone(amounts)
	slices.Sort(desc)
	slices.Reverse(desc)
	var parts []int64
	var walk func(rest int64, from int)
	walk = func(rest int64, from int) {
		if rest == 0 {
			byK[len(parts)] = append(byK[len(parts)], slices.Clone(parts))
			return
		}
		if len(parts) == maxParts {
			return
		}
		left := int64(maxParts - len(parts))
		for i := from; i < len(desc); i++ {
			a := desc[i]
			if a > rest {
				continue
			}
			if a*left < rest {
				return // the remaining parts, none larger than a, cannot reach rest
			}
			parts = append(parts, a)
			walk(rest-a, i)
			parts = parts[:len(parts)-1]
		}
	}
	walk(total, 0)
	return byK
}
