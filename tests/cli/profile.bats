#!/usr/bin/env bats
# common/scripts/profile.sh, the labs' `make profile`: the runs go several at once, the table
# keeps the order given, a missing permission is said once and is no failure, a failed run is
# named. No GPU and no ncu needed: a fake ncu prints a real H100 capture (the metrics tool's
# fixture) and records how many of it run at once.
# Run: bats tests/cli/profile.bats

bats_require_minimum_version 1.5.0

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    PROFILE="$ROOT/common/scripts/profile.sh"
    export FIX="$BATS_TEST_DIRNAME/fixtures/ncu/transpose_h100_page_raw.csv"
    export LIVE="$BATS_TEST_TMPDIR/live" ARGS="$BATS_TEST_TMPDIR/args" MOST="$BATS_TEST_TMPDIR/most"
    mkdir -p "$LIVE"
    # a fake ncu: marks itself live for a moment, notes the most marks it saw, prints the capture
    # (or, with FAKE_NCU=perm, fail or warn, a counter-permission error, a failed program, or
    # the capture from a program that then exited with status 3)
    export NCU="$BATS_TEST_TMPDIR/ncu"
    cat >"$NCU" <<'EOF'
#!/usr/bin/env bash
echo "$*" >>"$ARGS"
touch "$LIVE/$$"
n=$(ls "$LIVE" | wc -l)
flock "$MOST.lock" sh -c 'm=$(cat "$1" 2>/dev/null || echo 0); [ "$2" -le "$m" ] || echo "$2" >"$1"' _ "$MOST" "$n"
# the first variants take longest, so the runs end in another order than they began
case "$*" in *"--variant "[12]" "*) sleep 1.0 ;; *) sleep 0.4 ;; esac
rm -f "$LIVE/$$"
case ${FAKE_NCU:-} in
    perm) echo "==ERROR== ERR_NVGPUCTRPERM"; exit 1 ;;
    fail) case "$*" in *"--variant 2 "*) echo "the program broke"; exit 1 ;; esac ;;
    notwritten) case "$*" in *"--variant "[2-9]" "*)
        echo "==ERROR== The application returned an error code (4)."; exit 4 ;; esac ;;
    warn) cat "$FIX"; exit 3 ;;
esac
cat "$FIX"
EOF
    chmod +x "$NCU"
    OUT="$BATS_TEST_TMPDIR/profile.tsv"
}

labels() { cut -f1 "$OUT" | tail -n +2 | uniq | tr '\n' ' '; }

@test "profile: every variant profiled, several at once but no more than asked, the order kept" {
    KIT_PROFILE_JOBS=3 run "$PROFILE" /bin/lab-bin lab04 640x480 "1 2 3 4:2 5 6:1:--filter,gauss5" "$OUT"
    [ "$status" -eq 0 ]
    [[ "$output" == *"wrote $OUT"* ]]
    [ "$(labels)" = "v1 v2 v3 v4 v5 v6 " ]
    [ "$(cat "$MOST")" -gt 1 ]
    [ "$(cat "$MOST")" -le 3 ]
    # each run: its variant, the size, its launch count and extra arguments, one repetition
    grep -q -- '-c 2 /bin/lab-bin --variant 4 --size 640x480 --reps 1 --quiet$' "$ARGS"
    grep -q -- '-c 1 /bin/lab-bin --variant 6 --size 640x480 --filter gauss5 --reps 1 --quiet$' "$ARGS"
    [ "$(wc -l <"$ARGS")" -eq 6 ]
}

@test "profile: one at a time unless asked" {
    run "$PROFILE" /bin/lab-bin lab03 --rows=40,--cols=30 "1 2 3" "$OUT"
    [ "$status" -eq 0 ]
    [ "$(labels)" = "v1 v2 v3 " ]
    [ "$(cat "$MOST")" -eq 1 ]
    grep -q -- '/bin/lab-bin --variant 2 --rows=40 --cols=30 --reps 1 --quiet$' "$ARGS"
}

@test "profile --runs: each label with its kernel and arguments (lab 07's form)" {
    KIT_PROFILE_JOBS=2 run "$PROFILE" --runs /bin/lab-bin lab07 \
        "sum-v1:sum_arrays:--part,sum,--n,99 tr-v3:transpose_smem:--part,transpose,--size,33x31" "$OUT"
    [ "$status" -eq 0 ]
    [ "$(labels)" = "sum-v1 tr-v3 " ]
    grep -q -- '-k regex:^sum_arrays -c 1 /bin/lab-bin --part sum --n 99 --reps 1 --quiet$' "$ARGS"
    grep -q -- '-k regex:^transpose_smem -c 1 /bin/lab-bin --part transpose --size 33x31 --reps 1 --quiet$' "$ARGS"
}

@test "profile: the metrics tool's warnings of a run that succeeded still reach the console" {
    FAKE_NCU=warn KIT_PROFILE_JOBS=4 run --separate-stderr "$PROFILE" /bin/lab-bin lab04 64x48 "1 2" "$OUT"
    [ "$status" -eq 0 ]
    [ "$(labels)" = "v1 v2 " ]
    [ "$(grep -c 'exited with status 3' <<<"$stderr")" -eq 2 ]
}

@test "profile: no counter permission is said once, no table, exit 0" {
    FAKE_NCU=perm run --separate-stderr "$PROFILE" /bin/lab-bin lab04 64x48 "1 2 3 4" "$OUT"
    [ "$status" -eq 0 ]
    [ "$output" = "profile: carrying on with timings only (make bench)" ]
    [ "$(grep -c 'ERR_NVGPUCTRPERM' <<<"$stderr")" -eq 1 ]
    [ ! -e "$OUT" ]
}

@test "profile: a run that fails is named with its output, no table, exit 1" {
    FAKE_NCU=fail run --separate-stderr "$PROFILE" /bin/lab-bin lab04 64x48 "1 2 3" "$OUT"
    [ "$status" -eq 1 ]
    [ "$output" = "profile: v2 failed (exit 3)" ]
    [[ "$stderr" == *"the program broke"* ]]
    [ ! -e "$OUT" ]
}

@test "profile: a variant not written yet (the program's exit 4) is skipped and said; none written: no table, exit 0" {
    FAKE_NCU=notwritten run --separate-stderr "$PROFILE" /bin/lab-bin lab04 64x48 "1 2 3" "$OUT"
    [ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
    [[ "$output" == *"profile: v2 not written yet (the program says not implemented): skipped"* ]]
    [[ "$output" == *"profile: v3 not written yet"* ]]
    [ "$(labels)" = "v1 " ]
    FAKE_NCU=notwritten run --separate-stderr "$PROFILE" /bin/lab-bin lab04 64x48 "2 3" "$OUT"
    [ "$status" -eq 0 ]
    [[ "$output" == *"profile: nothing profiled: no variant is written yet" ]]
    [ ! -e "$OUT" ]
}

@test "profile: bad usage is exit 2" {
    run "$PROFILE" /bin/lab-bin lab04 64x48
    [ "$status" -eq 2 ]
    run "$PROFILE" --runs /bin/lab-bin lab07 "$OUT"
    [ "$status" -eq 2 ]
}
