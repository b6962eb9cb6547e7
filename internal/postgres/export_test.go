package postgres

// For the tests of the batch's writes that fail (writechecks_test.go).
var (
	WriteChecks = writeChecks
	ErrKeyRace  = errKeyRace
)

const (
	InsertKeys = insertKeys
	UpdateSold = updateSold
)
