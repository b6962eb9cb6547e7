package game

import (
	"context"
	"sync"

	"starcolor/internal/emission"
)

// pageCache keeps the most recently read pages of units in memory. Sales go through a block in
// order, so each page is read once from the database for its 256 sales, and replays of recent
// games find their page here. Pages never change, so nothing is ever stale.
type pageCache struct {
	src   emission.Pages
	size  int
	mu    sync.Mutex
	pages map[pageKey][]byte
	order []pageKey
}

type pageKey struct {
	emission    string
	block, page int
}

func newPageCache(src emission.Pages, size int) *pageCache {
	return &pageCache{src: src, size: size, pages: map[pageKey][]byte{}}
}

func (c *pageCache) Page(ctx context.Context, id string, block, page int) ([]byte, error) {
	k := pageKey{id, block, page}
	c.mu.Lock()
	data, ok := c.pages[k]
	c.mu.Unlock()
	if ok {
		return data, nil
	}
	data, err := c.src.Page(ctx, id, block, page)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if _, ok := c.pages[k]; !ok {
		if len(c.order) >= c.size {
			delete(c.pages, c.order[0])
			c.order = c.order[1:]
		}
		c.pages[k] = data
		c.order = append(c.order, k)
	}
	c.mu.Unlock()
	return data, nil
}
