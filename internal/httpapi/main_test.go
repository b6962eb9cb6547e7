package httpapi_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"starcolor/internal/storetest"
)

// TestMain runs every test of the API on SQLite, and then, when a PostgreSQL database is given
// ($STARCOLOR_TEST_POSTGRES), all of them again on PostgreSQL (in a second run of this test
// binary, with STARCOLOR_TEST_STORE=postgres): the same tests on both stores.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || os.Getenv("STARCOLOR_TEST_STORE") != "" {
		os.Exit(code)
	}
	if os.Getenv(storetest.PostgresEnv) == "" {
		if os.Getenv("CI") == "true" {
			fmt.Printf("FAIL: the API tests did not run on PostgreSQL: no $%s (CI=true: they must)\n", storetest.PostgresEnv)
			os.Exit(1)
		}
		fmt.Printf("skipping the API tests on PostgreSQL: no $%s\n", storetest.PostgresEnv)
		os.Exit(code)
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Env = append(os.Environ(), "STARCOLOR_TEST_STORE=postgres")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Printf("FAIL: the API tests on PostgreSQL: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}
