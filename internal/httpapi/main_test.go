package httpapi_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"starcolor/internal/storetest"
)

// TestMain runs the same tests of the API on both stores, with and without the operator's wallet:
//  1. On SQLite, in this process.
//  2. On PostgreSQL, when a database is given ($STARCOLOR_TEST_POSTGRES, with
//     STARCOLOR_TEST_STORE=postgres).
//  3. In seamless wallet mode, in front of the reference wallet (STARCOLOR_TEST_WALLET=1,
//     walletsuite_test.go), on SQLite.
//  4. In seamless wallet mode on PostgreSQL, when a database is given.
//
// Runs 2 to 4 are each a run of this test binary of its own, made once the run before passed.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || os.Getenv("STARCOLOR_TEST_STORE") != "" || walletSuite {
		os.Exit(code)
	}
	postgres := os.Getenv(storetest.PostgresEnv) != ""
	if !postgres {
		if os.Getenv("CI") == "true" {
			fmt.Printf("FAIL: the API tests did not run on PostgreSQL: no $%s (CI=true: they must)\n", storetest.PostgresEnv)
			os.Exit(1)
		}
		fmt.Printf("skipping the API tests on PostgreSQL: no $%s\n", storetest.PostgresEnv)
	}
	runs := []struct {
		name string
		env  []string
	}{
		{"on PostgreSQL", []string{"STARCOLOR_TEST_STORE=postgres"}},
		{"in wallet mode on SQLite", []string{walletSuiteEnv + "=1"}},
		{"in wallet mode on PostgreSQL", []string{"STARCOLOR_TEST_STORE=postgres", walletSuiteEnv + "=1"}},
	}
	for _, r := range runs {
		if !postgres && r.env[0] == "STARCOLOR_TEST_STORE=postgres" {
			continue
		}
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), r.env...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Printf("FAIL: the API tests %s: %v\n", r.name, err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}
