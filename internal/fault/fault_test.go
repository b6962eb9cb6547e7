package fault

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodes(t *testing.T) {
	err := fmt.Errorf("selling: %w", Errorf(SoldOut, "no ticket left at %d", 200))
	if CodeOf(err) != SoldOut || !Is(err, SoldOut) || Is(err, NotFound) {
		t.Fatalf("a wrapped fault lost its code: %v", CodeOf(err))
	}
	if err.Error() != "selling: no ticket left at 200" {
		t.Fatalf("message %q", err.Error())
	}
	if CodeOf(errors.New("disk on fire")) != Internal || Is(nil, Internal) {
		t.Fatal("a plain error must be internal, and nil no fault at all")
	}
}
