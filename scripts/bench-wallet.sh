#!/usr/bin/env bash
# bench-wallet.sh: wallet mode against the mode without a wallet, for one build of Star Color,
# alternated pair by pair on this machine (docs/PERFORMANCE.md, issue 24 item 6).
#
#   scripts/bench-wallet.sh [-n PAIRS] [-d SECONDS] [-w DELAY] [REV [OLD]]
#
# REV (default HEAD) and OLD are git revisions of this repository. Each run serves a copy of one
# base file (one 1,000,000-unit emission at each price) and plays 64 « Auto » players for
# SECONDS:
#
#  - without a wallet: the players deposit, then play;
#  - in wallet mode: behind the reference wallet on this machine, answering each call DELAY
#    late (default 5ms; a fresh wallet file each run, not synced), the players launched by the
#    operator's signed call.
#
# For each run it prints the plays per second and the server's µs of CPU a play (its own CPU
# counter, through its metrics: the wallet's process does not count), and in wallet mode the
# wallet's µs of CPU a play (/proc). Then each pair's ratios: with REV alone, REV in wallet mode
# / REV without; with OLD, REV / OLD, both in wallet mode. The order is swapped each pair. Builds and files go in $STARCOLOR_BENCH_DIR (default
# /tmp/starcolor-bench); the ports 18190–18192 and 19190 must be free. Check `uptime` first.
set -euo pipefail

pairs=3 secs=15 delay=5ms
while getopts "n:d:w:" o; do
	case $o in
	n) pairs=$OPTARG ;;
	d) secs=$OPTARG ;;
	w) delay=$OPTARG ;;
	*) sed -n '2,6p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 2 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
. "$repo/scripts/bench-lib.sh"
work=${STARCOLOR_BENCH_DIR:-/tmp/starcolor-bench}
rev=$(git -C "$repo" rev-parse --short "${1:-HEAD}")
old=
[ $# -lt 2 ] || old=$(git -C "$repo" rev-parse --short "$2")

# use REV: the build of REV is the one the runs serve: $dir and $bin, built once.
use() {
	dir=$work/$1-wallet
	bin=$dir/bin
	mkdir -p "$dir"
	bench_build "$repo" "$1" "$dir"
	[ -f "$dir/secret" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secret"
}

# cpu PID: the process's CPU so far, in clock ticks (utime + stime).
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# stop: the servers and wallets of every build this script runs.
stop() {
	pkill -f "$work/[^ ]*-wallet/bin/starcolor serve" 2>/dev/null || true
	pkill -f "$work/[^ ]*-wallet/bin/starcolor-fakewallet" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap stop EXIT

# base: the base file of the build in use, made once: the server's start-up emissions.
base() {
	if [ ! -f "$dir/base.db" ]; then
		"$bin/starcolor" serve --db "$dir/base.db" --addr 127.0.0.1:18190 >"$dir/base.log" 2>&1 &
		waitfor "$dir/base.log" "store checked"
		stop
	fi
}
for r in $rev $old; do
	use "$r"
	base
done

# play MODE: one run, MODE "plain" or "wallet"; prints "plays/s server-µs wallet-µs".
play() {
	stop
	rm -f "$dir"/run.db* "$dir"/wallet.db*
	cp "$dir/base.db" "$dir/run.db"
	cp "$dir/base.db.journal-key" "$dir/run.db.journal-key"
	local flags=(--db "$dir/run.db" --addr 127.0.0.1:18190 --auth-per-minute 0 --metrics-addr 127.0.0.1:19190)
	local tool=(--addr http://127.0.0.1:18190 --players 64 --duration "${secs}s" --metrics http://127.0.0.1:19190)
	local wallet=
	if [ "$1" = wallet ]; then
		"$bin/starcolor-fakewallet" --addr 127.0.0.1:18192 --secret-file "$dir/secret" --db "$dir/wallet.db" \
			--slow 1 --slow-delay "$delay" --not-durable --initial-balance 100000000 >"$dir/wallet.log" 2>&1 &
		wallet=$!
		flags+=(--wallet http://127.0.0.1:18192 --wallet-secret-file "$dir/secret")
		tool+=(--wallet-secret-file "$dir/secret")
	fi
	"$bin/starcolor" serve "${flags[@]}" >"$dir/run.log" 2>&1 &
	waitfor "$dir/run.log" "store checked"
	local before=0
	[ -n "$wallet" ] && before=$(cpu "$wallet")
	"$bin/starcolor-loadtest" "${tool[@]}" >"$dir/lt.out" 2>&1
	local after=0
	[ -n "$wallet" ] && after=$(cpu "$wallet")
	local p c n w=0
	p=$(grep -oP '[0-9.]+(?= plays/s)' "$dir/lt.out" || true)
	c=$(grep -oP 'server \K[0-9.]+(?= µs)' "$dir/lt.out" || true)
	# The count is printed with thin spaces between its thousands.
	n=$(grep -oP '^plays +\K.*(?= finished)' "$dir/lt.out" | tr -cd '0-9' || true)
	[ -n "$p" ] && [ -n "$c" ] || { echo "bench-wallet: no plays/s or CPU from the $1 run:" >&2; tail -5 "$dir/lt.out" >&2; return 1; }
	# The wallet's ticks over the whole load (its set-up included, a few hundred calls).
	[ -n "$wallet" ] && [ -n "$n" ] && w=$(((after - before) * 1000000 / $(getconf CLK_TCK) / n))
	if [ -n "$wallet" ] && ! "$bin/starcolor" wallet reconcile --db "$dir/run.db" --wallet http://127.0.0.1:18192 --wallet-secret-file "$dir/secret" >"$dir/reconcile.out" 2>&1; then
		echo "bench-wallet: the wallet and the server disagree:" >&2
		tail -5 "$dir/reconcile.out" >&2
		return 1
	fi
	echo "$p $c $w"
}

echo "# $pairs pairs of ${secs}s, $rev${old:+ against $old}, wallet answering ${delay} late, $(uptime)"
# Each run is a key: "plain" or "wallet" of REV alone, or a revision in wallet mode.
if [ -z "$old" ]; then runs=(plain wallet) a=wallet b=plain; else runs=("$rev" "$old") a=$rev b=$old; fi
for i in $(seq 1 "$pairs"); do
	if [ $((i % 2)) = 1 ]; then order="${runs[0]} ${runs[1]}"; else order="${runs[1]} ${runs[0]}"; fi
	declare -A p c w
	for k in $order; do
		if [ -z "$old" ]; then use "$rev"; m=$k; else use "$k"; m=wallet; fi
		read -r p[$k] c[$k] w[$k] < <(play "$m")
		echo "$i $k ${p[$k]} plays/s, server ${c[$k]} µs a play, wallet ${w[$k]} µs a play, $(date +%T), load $(cut -d' ' -f1 /proc/loadavg)"
	done
	echo "pair $i: plays $(echo "scale=3; ${p[$a]}/${p[$b]}" | bc), server CPU a play $(echo "scale=3; ${c[$a]}/${c[$b]}" | bc) ($a / $b)"
done
