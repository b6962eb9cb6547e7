# bench-lib.sh: what the benchmark scripts share, sourced by them (not run on its own).

# bench_build REPO REV DIR: the revision's commands, built once into DIR/bin.
bench_build() {
	[ -x "$3/bin/starcolor" ] && return
	rm -rf "$3/src"
	mkdir -p "$3/src"
	git -C "$1" archive "$2" | tar -x -C "$3/src"
	(cd "$3/src" && GOFLAGS=-buildvcs=false go build -o "$3/bin/" ./cmd/...)
}

# waitfor FILE TEXT [SECONDS]: until the log says it, SECONDS (default 60) at most.
waitfor() {
	local secs=${3:-60}
	for _ in $(seq 1 $((secs * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$(basename "$0"): no \"$2\" in $1 after $secs s" >&2
	tail -5 "$1" >&2
	return 1
}
