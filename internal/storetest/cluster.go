package storetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// PostgresBinEnv names the directory of PostgreSQL's programs (initdb, pg_ctl) for the tests that
// run a server of their own; without it the newest /usr/lib/postgresql/*/bin is used, then $PATH.
const PostgresBinEnv = "STARCOLOR_TEST_PGBIN"

// Cluster is a PostgreSQL server of a test's own, made with initdb in a temporary directory, for
// the tests that restart the server under load (which the server of $STARCOLOR_TEST_POSTGRES,
// shared by every package's tests, must not be). Its settings are PostgreSQL's defaults, fsync
// and synchronous_commit on. It is stopped and removed when the test ends.
type Cluster struct {
	URL string // postgres://… of its database "postgres"
	bin string
	dir string
	as  *syscall.Credential // run its programs as this user (the tests run as root)
}

// NewCluster makes and starts a cluster; it skips the test where PostgreSQL's programs are not
// installed (fails under CI).
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin := postgresBin()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); bin == "" || err != nil {
		skipOrFail(t, "PostgreSQL's initdb is not installed (or not in $%s): the test runs a PostgreSQL server of its own", PostgresBinEnv)
	}
	dir, err := os.MkdirTemp("", "starcolor-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{bin: bin, dir: dir}
	t.Cleanup(func() {
		c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "stop")
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: as the postgres user, which owns the directory.
		u, err := user.Lookup("postgres")
		if err != nil {
			skipOrFail(t, "running as root and no user postgres to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.as = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("initdb", "-D", c.data(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses=127.0.0.1", dir, port)
	if out, err := c.run("pg_ctl", "-D", c.data(), "-w", "-l", c.log(), "-o", opts, "start"); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c
}

// Restart restarts the server as an operator would for a minor upgrade: pg_ctl restart -m fast,
// which ends every connection, rolls back the transactions in flight, and waits until the server
// accepts connections again.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	if out, err := c.run("pg_ctl", "-D", c.data(), "-w", "-l", c.log(), "-m", "fast", "restart"); err != nil {
		t.Fatalf("pg_ctl restart: %v\n%s", err, out)
	}
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// log is the server's log: given to every start, as the server started otherwise would write to
// pg_ctl's output, and hold it open for as long as it runs.
func (c *Cluster) log() string { return filepath.Join(c.dir, "log") }

func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	cmd.WaitDelay = 10 * time.Second // never wait on a server holding the output open
	if c.as != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.as}
	}
	return cmd.CombinedOutput()
}

func postgresBin() string {
	if dir := os.Getenv(PostgresBinEnv); dir != "" {
		return dir
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	if len(dirs) > 0 {
		return dirs[len(dirs)-1]
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

// version is the major version in /usr/lib/postgresql/N/bin.
func version(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
