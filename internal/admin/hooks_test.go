package admin

// SetBigWin sets the prize from which a win is big (today.go), for a test whose table has no
// prize of 1,000 €, and gives what puts it back.
func SetBigWin(cents int64) (restore func()) {
	old := bigWin.Swap(cents)
	return func() { bigWin.Store(old) }
}
