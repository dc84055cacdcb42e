#!/usr/bin/env bats
# Command-line tests of grading/metrics, the profiler-metrics tool (legacy nvprof names <- ncu).
# No GPU and no ncu needed: the parser is fed a real H100 capture (transpose_h100_page_raw.csv:
# NVIDIA's transposeNaive under ncu 2025.3.1, a live run with its ==PROF== lines, program output
# and 295 columns) and small hand-made CSVs that each carry one quirk of real ncu output, all in
# tests/cli/fixtures/ncu/; `run` is driven by a fake ncu script that prints a fixture.
# The parts of the tool have their own unit tests (grading/tests/test_metrics_*.py).
# Run: bats tests/cli/metrics.bats

bats_require_minimum_version 1.5.0

setup() {
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    METRICS="$ROOT/grading/metrics"
    FIX="$BATS_TEST_DIRNAME/fixtures/ncu"
    TRANSPOSE="$FIX/transpose_h100_page_raw.csv"
    # a fake ncu: records its arguments, prints a fixture, exits with a chosen status
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    FAKE="$BATS_TEST_TMPDIR/bin/ncu"
    cat >"$FAKE" <<'EOF'
#!/usr/bin/env bash
printf '%s\n' "$@" >"$FAKE_NCU_ARGS"
cat "$FAKE_NCU_OUT"
exit "${FAKE_NCU_RC:-0}"
EOF
    chmod +x "$FAKE"
    export FAKE_NCU_ARGS="$BATS_TEST_TMPDIR/ncu.args"
}

# field LAUNCH LEGACY COLUMN: one column of the row of that launch and legacy name in $output
field() {
    printf '%s\n' "$output" | awk -F'\t' -v l="$1" -v g="$2" -v c="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $h["launch"] == l && $h["legacy"] == g { print $h[c] }'
}

# --- the real capture ----------------------------------------------------------------------

@test "transposeNaive on H100: gld_efficiency 100 and gst_efficiency 12.5" {
    run --separate-stderr "$METRICS" parse "$TRANSPOSE"
    [ "$status" -eq 0 ]
    [ "$(field 0 gld_efficiency kernel)" = "transposeNaive(float *, float *, int, int)" ]
    awk -v v="$(field 0 gld_efficiency value)" 'BEGIN { exit !(v + 0 == 100) }'
    awk -v v="$(field 0 gst_efficiency value)" 'BEGIN { exit !(v + 0 == 12.5) }'
    [ "$(field 0 gst_efficiency unit)" = "%" ]
    [ "$(field 2 gst_efficiency block)" = "32x16x1" ]
    [ "$(field 2 gst_efficiency grid)" = "64x64x1" ]
    # three profiled launches; without --all no device__ column, and of the launch__ ones only
    # the two the mapping names (shared memory per block: none in this kernel)
    [ "$(printf '%s\n' "$output" | cut -f2 | sort -u | grep -c '^[0-9]')" -eq 3 ]
    [ "$(printf '%s\n' "$output" | grep -c 'device__')" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep 'launch__' | cut -f5 | sort -u | tr '\n' ' ')" = "dynamic_shared_mem_per_block static_shared_mem_per_block " ]
    [ "$(field 0 static_shared_mem_per_block value)" = "0" ]
    [ "$(field 0 dynamic_shared_mem_per_block unit)" = "byte/block" ]
}

@test "transpose capture with --all: every column of every launch once, mapped ones by legacy name" {
    run --separate-stderr "$METRICS" parse --all "$TRANSPOSE"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    # 295 columns, 11 of them the launch's identity: 284 rows per launch, 3 launches, a header
    [ "${#lines[@]}" -eq $((1 + 3 * 284)) ]
    [ "$(field 1 gst_efficiency value)" = "12.50" ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "1" && $6 == "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"' | wc -l)" -eq 1 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "2" && $6 == "profiler__replayer_passes" { print $5 "|" $7 "|" $8 }')" = "-|3|pass" ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "0" && $6 == "dram__bytes_read.avg.per_second" { print $7 }')" = "6159777967.55" ]
}

# --- quirks, one fixture each ----------------------------------------------------------------

@test "live stdout: ==PROF== and program lines (even a quoted one) are dropped" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(printf 'kernel\tlaunch\tblock\tgrid\tlegacy\tmetric\tvalue\tunit')" ]
    [ "$(printf '%s\n' "$output" | grep -c 'PROF\|PASS\|quoted')" -eq 0 ]
    # 5 launches x 9 mapped metric columns, plus the header
    [ "${#lines[@]}" -eq 46 ]
    [ -z "$stderr" ]
}

@test "units row is skipped and units come out per metric" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" | awk -F'\t' 'NR > 1 && $2 == "" { bad = 1 } END { exit bad }'
    [ "$(field 0 dram_read_throughput unit)" = "byte/s" ]
    [ "$(field 0 duration unit)" = "ns" ]
    [ "$(field 0 gld_transactions unit)" = "sector" ]
    [ "$(field 0 achieved_occupancy unit)" = "%" ]
}

@test "thousands separators are removed, decimals kept as given" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$(field 0 dram_read_throughput value)" = "1234567890.5" ]
    [ "$(field 1 dram_write_throughput value)" = "1500000000000.75" ]
    [ "$(field 0 duration value)" = "1280448" ]
    [ "$(field 0 gld_efficiency value)" = "80.50" ]
    [ "$(field 1 shared_ld_bank_conflict value)" = "4096" ]
}

@test "commas inside Block Size and Grid Size become 16x16x1" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$(field 0 duration block)" = "16x16x1" ]
    [ "$(field 0 duration grid)" = "312x234x1" ]
    [ "$(field 4 duration block)" = "256x1x1" ]
    [ "$(field 4 duration grid)" = "40x1x1" ]
    # every row still has 8 columns
    printf '%s\n' "$output" | awk -F'\t' 'NF != 8 { exit 1 }'
}

@test "l2_read_transactions is the sum of its three ncu columns" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$(field 0 l2_read_transactions value)" = "1048588" ]   # 1,048,576 + 0 + 12
    [ "$(field 1 l2_read_transactions value)" = "525312" ]    # 524,288 + 1,024 + 0
    [ "$(field 2 l2_read_transactions value)" = "1048584" ]   # 1,048,580 + 0 + 4
    [ "$(field 0 l2_read_transactions metric)" = "lts__t_sectors_op_read.sum + lts__t_sectors_op_atom.sum + lts__t_sectors_op_red.sum" ]
    # no column for writes: no l2_write_transactions row
    [ -z "$(field 0 l2_write_transactions value)" ]
}

@test "kernel names with commas, spaces, parentheses and template brackets survive" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$(field 1 duration kernel)" = "void tiled<float, 16>(const float *, float *, int, int)" ]
    [ "$(field 0 duration kernel)" = "conv2d_global(const float *, float *, int, int)" ]
    [ "$(field 4 duration kernel)" = "rows_kernel(int, double *)" ]
}

@test "multiple launches of several kernels: one row per launch per metric" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $2 }' | sort -u | tr '\n' ' ')" = "0 1 2 3 4 " ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $1 }' | sort -u | wc -l)" -eq 3 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$5 == "duration" && $1 ~ /^void tiled/' | wc -l)" -eq 2 ]
    [ "$(field 3 duration value)" = "202112" ]
}

@test "ncu -i output (no ==PROF== lines) parses to the same TSV" {
    run "$METRICS" parse "$FIX/live_mixed.csv"
    local live=$output
    run "$METRICS" parse "$FIX/import_raw.csv"
    [ "$status" -eq 0 ]
    [ "$output" = "$live" ]
    [ "${#lines[@]}" -eq 46 ]
}

@test "CRLF line endings and stdin give the same TSV" {
    run "$METRICS" parse "$FIX/import_raw.csv"
    local ref=$output
    sed 's/$/\r/' "$FIX/live_mixed.csv" >"$BATS_TEST_TMPDIR/crlf.csv"
    run "$METRICS" parse "$BATS_TEST_TMPDIR/crlf.csv"
    [ "$status" -eq 0 ]
    [ "$output" = "$ref" ]
    run bash -c '"$1" parse - <"$2"' _ "$METRICS" "$FIX/live_mixed.csv"
    [ "$status" -eq 0 ]
    [ "$output" = "$ref" ]
}

@test "missing metric columns: no row; a sum missing a member: no row; n/a value: NA" {
    run --separate-stderr "$METRICS" parse "$FIX/missing_cols.csv"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 4 ]
    [ -z "$(field 0 gst_efficiency value)" ]
    [ -z "$(field 0 l2_write_transactions value)" ]
    [ "$(field 0 l2_read_transactions value)" = "250010" ]
    [ "$(field 0 gld_efficiency value)" = "NA" ]
    [ "$(field 0 duration value)" = "22016" ]
}

@test "asking for metrics that are missing names them on stderr" {
    run --separate-stderr "$METRICS" parse --metrics l2_write_transactions,duration "$FIX/missing_cols.csv"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 2 ]
    [ "$(field 0 duration value)" = "22016" ]
    [[ "$stderr" == *"l2_write_transactions"*"lts__t_sectors_op_write.sum"* ]]
}

@test "unknown columns are skipped, --all keeps them with legacy -" {
    run --separate-stderr "$METRICS" parse "$FIX/live_mixed.csv"
    [ "$(printf '%s\n' "$output" | grep -c 'launch__grid_size\|device__attribute_display_name')" -eq 0 ]
    run --separate-stderr "$METRICS" parse --all "$FIX/live_mixed.csv"
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "0" && $6 == "launch__grid_size" { print $5 "|" $7 }')" = "-|73008" ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "0" && $6 == "lts__t_sectors_op_red.sum" { print $7 }')" = "12" ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "0" && $6 == "device__attribute_display_name" { print $7 }')" = "NVIDIA H100 80GB HBM3" ]
}

@test "--label adds a first column on the header and every row" {
    run --separate-stderr "$METRICS" parse --label "v2 tiled" "$FIX/live_mixed.csv"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "label"$'\t'"kernel"$'\t'* ]]
    [ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $1 }' | sort -u)" = "v2 tiled" ]
    printf '%s\n' "$output" | awk -F'\t' 'NF != 9 { exit 1 }'
}

@test "--set keeps only the members of the set" {
    run --separate-stderr "$METRICS" parse --set lab06 "$FIX/live_mixed.csv"
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $5 }' | sort -u | tr '\n' ' ')" = "achieved_occupancy dram_read_throughput duration gld_efficiency gld_transactions " ]
}

# --- bad input and usage -------------------------------------------------------------------

@test "empty file: exit 2, one line" {
    : >"$BATS_TEST_TMPDIR/empty.csv"
    run "$METRICS" parse "$BATS_TEST_TMPDIR/empty.csv"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *empty* ]]
}

@test "text that is not ncu CSV: exit 2, one line" {
    run "$METRICS" parse "$FIX/not_csv.txt"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"not an ncu CSV"* ]]
}

@test "missing file: exit 2, one line" {
    run "$METRICS" parse "$BATS_TEST_TMPDIR/nope.csv"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"no such file"* ]]
}

@test "binary file: exit 2, one line" {
    printf 'ID\0\001\002"Kernel Name"\0\377' >"$BATS_TEST_TMPDIR/bin.dat"
    run "$METRICS" parse "$BATS_TEST_TMPDIR/bin.dat"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *binary* ]]
}

@test "--page details output: exit 2 and says to use --page raw" {
    run "$METRICS" parse "$FIX/details.csv"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"--page raw"* ]]
}

@test "bad subcommand, no subcommand, bad option: exit 2, one line" {
    run "$METRICS" frobnicate
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *frobnicate* ]]
    run "$METRICS"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    run "$METRICS" parse --bogus "$FIX/live_mixed.csv"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    run "$METRICS" parse --set nosuchset "$FIX/live_mixed.csv"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
}

@test "--help works for the script and every subcommand" {
    local s
    run "$METRICS" --help
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == Usage:* ]]
    for s in parse run list table plot; do
        run "$METRICS" "$s" --help
        [ "$status" -eq 0 ]
        [[ "${lines[0]}" == "Usage: grading/metrics $s"* ]]
    done
}

# --- run, with a fake ncu ------------------------------------------------------------------

@test "run: fake ncu printing a capture gives the same TSV as parse" {
    run "$METRICS" parse "$FIX/live_mixed.csv"
    local ref=$output
    FAKE_NCU_OUT="$FIX/live_mixed.csv" NCU="$FAKE" run --separate-stderr "$METRICS" run --set all -- ./lab03 --variant 1
    [ "$status" -eq 0 ]
    [ "$output" = "$ref" ]
}

@test "run: the ncu command line carries the set's metrics, kernel regex and launch count" {
    FAKE_NCU_OUT="$FIX/live_mixed.csv" NCU="$FAKE" run --separate-stderr "$METRICS" run --set lab03 --kernel 'conv|tiled' --launch-count 2 -- ./lab03 --variant 'a b'
    [ "$status" -eq 0 ]
    local args
    args=$(tr '\n' ' ' <"$FAKE_NCU_ARGS")
    [[ "$args" == "--csv --page raw --print-units base --clock-control none --metrics "* ]]
    [[ "$args" == *" -k regex:conv|tiled -c 2 ./lab03 --variant a b " ]]
    [ "$(sed -n '9p' "$FAKE_NCU_ARGS")" = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_integer_pred_on.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,smsp__sass_thread_inst_executed_op_memory_pred_on.sum" ]
    # the argument with a space stayed one argument
    [ "$(tail -n 1 "$FAKE_NCU_ARGS")" = "a b" ]
    # the set's members that the capture lacks are named on stderr
    [[ "$stderr" == *gst_transactions* ]]
}

@test "run: sum members are listed once, deduplicated" {
    FAKE_NCU_OUT="$FIX/live_mixed.csv" NCU="$FAKE" run --separate-stderr "$METRICS" run --metrics l2_read_transactions,l2_write_transactions -- ./app
    [ "$status" -eq 0 ]
    [ "$(sed -n '9p' "$FAKE_NCU_ARGS")" = "lts__t_sectors_op_read.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_write.sum" ]
    [ "$(field 1 l2_read_transactions value)" = "525312" ]
}

@test "run --label adds the label column, --keep keeps ncu's output" {
    FAKE_NCU_OUT="$FIX/live_mixed.csv" NCU="$FAKE" run --separate-stderr "$METRICS" run --set lab06 --label coalesced --keep "$BATS_TEST_TMPDIR/raw.csv" -- ./lab06
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == label$'\t'kernel* ]]
    [[ "${lines[1]}" == coalesced$'\t'conv2d_global* ]]
    cmp "$BATS_TEST_TMPDIR/raw.csv" "$FIX/live_mixed.csv"
}

@test "run: ERR_NVGPUCTRPERM gives exit 6 and the driver option" {
    FAKE_NCU_OUT="$FIX/perm_denied.txt" FAKE_NCU_RC=1 NCU="$FAKE" run "$METRICS" run --set global -- ./lab03
    [ "$status" -eq 6 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *NVreg_RestrictProfilingToAdminUsers=0* ]]
    [[ "$output" == *modprobe* ]]
    [[ "$output" == *root* && "$output" == *CAP_SYS_ADMIN* ]]
}

@test "run: command failed with no CSV gives exit 3 and its last lines" {
    FAKE_NCU_OUT="$FIX/not_csv.txt" FAKE_NCU_RC=1 NCU="$FAKE" run "$METRICS" run -- ./lab03
    [ "$status" -eq 3 ]
    [[ "$output" == *"failed"* ]]
    [[ "$output" == *"first mismatch at x=3 y=0"* ]]
}

@test "run: the program's not-implemented status (4) with no CSV gives exit 4 and says so" {
    FAKE_NCU_OUT="$FIX/not_csv.txt" FAKE_NCU_RC=4 NCU="$FAKE" run "$METRICS" run -- ./lab03
    [ "$status" -eq 4 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"not written yet"* ]]
}

@test "run: NCU pointing nowhere gives exit 5" {
    NCU=/nonexistent run "$METRICS" run -- ./lab03
    [ "$status" -eq 5 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *ncu* ]]
}

@test "run: no ncu on PATH nor in the usual places gives exit 5 and how to get it" {
    local d
    for d in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute /usr/bin/ncu /bin/ncu; do
        [ ! -e "$d" ] || skip "$d exists on this machine"
    done
    # a PATH with python3 (the tool's interpreter) and the system folders, but no ncu
    mkdir -p "$BATS_TEST_TMPDIR/py"
    ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$BATS_TEST_TMPDIR/py/python3"
    run env -u NCU PATH="$BATS_TEST_TMPDIR/py:/usr/bin:/bin" "$METRICS" run -- ./lab03
    [ "$status" -eq 5 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"not found"* && "$output" == *NCU=* ]]
}

@test "run: bad usage gives exit 2 before ncu is looked for" {
    NCU=/nonexistent run "$METRICS" run --set global
    [ "$status" -eq 2 ]
    NCU=/nonexistent run "$METRICS" run --launch-count many -- ./a
    [ "$status" -eq 2 ]
    NCU=/nonexistent run "$METRICS" run --metrics gld_efficiency,no_such_metric -- ./a
    [ "$status" -eq 2 ]
    [[ "$output" == *no_such_metric* ]]
    NCU=/nonexistent run "$METRICS" run --metrics inst_replay_overhead -- ./a
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
}

# --- mapping, sets, list, table, plot --------------------------------------------------------

@test "metrics.tsv covers every legacy name, 4 columns, with - for the names without equivalent" {
    local tsv="$ROOT/grading/metrics.tsv" n
    awk -F'\t' '!/^#/ && NF != 4 { print "bad line " NR; exit 1 }' "$tsv"
    for n in gld_efficiency gst_efficiency shared_efficiency achieved_occupancy sm_efficiency \
        warp_execution_efficiency dram_read_throughput dram_write_throughput dram_utilization \
        gld_throughput gst_throughput gld_transactions gst_transactions gld_transactions_per_request \
        l2_read_transactions l2_write_transactions l2_l1_read_throughput shared_load_transactions shared_store_transactions \
        shared_load_throughput shared_store_throughput shared_ld_bank_conflict shared_st_bank_conflict duration \
        static_shared_mem_per_block dynamic_shared_mem_per_block; do
        [ "$(awk -F'\t' -v n="$n" '$1 == n && $2 != "-" && $2 != "" && $3 != ""' "$tsv" | wc -l)" -eq 1 ]
    done
    for n in shared_load_transactions_per_request gld_requested_throughput gst_requested_throughput inst_replay_overhead; do
        [ "$(awk -F'\t' -v n="$n" '$1 == n && $2 == "-" && $4 != ""' "$tsv" | wc -l)" -eq 1 ]
    done
    [ "$(awk -F'\t' '$1 == "gst_throughput" { print $2 }' "$tsv")" = "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second" ]
    # the launch attributes: ncu's names as the H100 capture has them, bytes per block
    [ "$(awk -F'\t' '$1 ~ /_shared_mem_per_block$/ { print $2 "=" $3 }' "$tsv" | tr '\n' ' ')" = "launch__shared_mem_per_block_static=byte/block launch__shared_mem_per_block_dynamic=byte/block " ]
    grep -q '"launch__shared_mem_per_block_static"' "$TRANSPOSE"
    grep -q '"launch__shared_mem_per_block_dynamic"' "$TRANSPOSE"
}

@test "list: the mapping, sets, and lab sets equal the sets they name" {
    run "$METRICS" list
    [ "$status" -eq 0 ]
    [[ "$output" == *"warp_execution_efficiency"*"smsp__thread_inst_executed_per_inst_executed.ratio"* ]]
    run "$METRICS" list --set lab06
    local lab06=$output
    run "$METRICS" list --set matvec
    [ "$output" = "$lab06" ]
    [ "${#lines[@]}" -eq 9 ]
    run "$METRICS" list --set lab03
    [ "${#lines[@]}" -eq 16 ] # the global set and the instruction mix
    # the header and the 31 legacy names that have an ncu equivalent
    run "$METRICS" list --set all
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 32 ]
    [[ "$output" != *inst_replay_overhead* ]]
    run "$METRICS" list --sets
    [ "$status" -eq 0 ]
    [[ "$output" == *shared*shared_st_bank_conflict* ]]
}

@test "table: legacy names, percent with one decimal, short kernel names" {
    "$METRICS" parse --label naive "$TRANSPOSE" >"$BATS_TEST_TMPDIR/p.tsv"
    run "$METRICS" table "$BATS_TEST_TMPDIR/p.tsv"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == label*kernel*launch*metric*value*unit ]]
    printf '%s\n' "$output" | grep -Eq 'gst_efficiency +12\.5  %$'
    printf '%s\n' "$output" | grep -Eq 'gld_efficiency +100\.0  %$'
    printf '%s\n' "$output" | grep -Eq 'dram_read_throughput +246\.4  GB/s$'
    printf '%s\n' "$output" | grep -q 'transposeNaive(float \*, float \*, int,\.\.\. '
    [ "$(printf '%s\n' "$output" | grep -c 'int, int)')" -eq 0 ]
}

@test "table: a file that is not a metrics TSV gives exit 2" {
    run "$METRICS" table "$FIX/live_mixed.csv"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
}

@test "plot: PNG and PDF from a labelled TSV" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    "$METRICS" parse --label global "$FIX/live_mixed.csv" >"$BATS_TEST_TMPDIR/prof.tsv"
    "$METRICS" parse --label matvec "$FIX/missing_cols.csv" >"$BATS_TEST_TMPDIR/more.tsv"
    tail -n +2 "$BATS_TEST_TMPDIR/more.tsv" >>"$BATS_TEST_TMPDIR/prof.tsv"
    run "$METRICS" plot "$BATS_TEST_TMPDIR/prof.tsv" "$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 0 ]
    [ "$(head -c 4 "$BATS_TEST_TMPDIR/out.png" | od -An -c | tr -d ' ')" = '211PNG' ]
    [ "$(head -c 5 "$BATS_TEST_TMPDIR/out.pdf")" = "%PDF-" ]
    [ "$(stat -c %s "$BATS_TEST_TMPDIR/out.png")" -gt 10000 ]
}

@test "plot_metrics.gp also runs on its own, as gnuplot -e \"in=...; out=...\"" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    "$METRICS" parse --label v1 "$FIX/live_mixed.csv" >"$BATS_TEST_TMPDIR/prof.tsv"
    run gnuplot -e "in='$BATS_TEST_TMPDIR/prof.tsv'; out='$BATS_TEST_TMPDIR/direct'" "$ROOT/grading/plot_metrics.gp"
    [ "$status" -eq 0 ]
    [ -s "$BATS_TEST_TMPDIR/direct.png" ]
    [ -s "$BATS_TEST_TMPDIR/direct.pdf" ]
}

@test "plot: gnuplot missing gives exit 5, one line" {
    "$METRICS" parse --label v1 "$FIX/live_mixed.csv" >"$BATS_TEST_TMPDIR/prof.tsv"
    GNUPLOT=/nonexistent/gnuplot run "$METRICS" plot "$BATS_TEST_TMPDIR/prof.tsv" "$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 5 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *gnuplot* ]]
    [ ! -e "$BATS_TEST_TMPDIR/out.png" ]
}

@test "output without --print-units base is scaled to base units" {
    run --separate-stderr "$METRICS" parse "$FIX/scaled_units.csv"
    [ "$status" -eq 0 ]
    [ "$(field 0 dram_read_throughput value)" = "246390000000" ]
    [ "$(field 0 dram_read_throughput unit)" = "byte/s" ]
    [ "$(field 0 duration value)" = "74940" ]
    [ "$(field 0 duration unit)" = "ns" ]
    [ "$(field 0 gld_transactions value)" = "2048500" ]
}

# --- the metrics the new labs read (lab 04, lab 07) ------------------------------------------

@test "l2_l1_read_throughput: ncu's sectors per second come out as bytes per second" {
    run --separate-stderr "$METRICS" parse --set lab07 "$FIX/lab07_transpose.csv"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(field 0 l2_l1_read_throughput value)" = "601234567880" ]     # 18,788,580,246.25 x 32
    [ "$(field 0 l2_l1_read_throughput unit)" = "byte/s" ]
    [ "$(field 1 l2_l1_read_throughput value)" = "1402000000000" ]    # 43,812,500,000 x 32
    [ "$(field 0 l2_l1_read_throughput metric)" = "lts__t_sectors_srcunit_tex_op_read.sum.per_second" ]
    # without --print-units base: Gsector/second
    run --separate-stderr "$METRICS" parse "$FIX/scaled_units.csv"
    [ "$(field 0 l2_l1_read_throughput value)" = "246400000000" ]     # 7.7 x 32 x 1e9
}

@test "lab04 and lab07 sets: their members, in the order the labs show them" {
    run "$METRICS" list --sets
    [ "$status" -eq 0 ]
    [[ "$output" == *"lab04    shared_ld_bank_conflict shared_st_bank_conflict shared_efficiency shared_load_transactions gld_efficiency achieved_occupancy gld_throughput gst_throughput dram_read_throughput dram_write_throughput gld_transactions gst_transactions l2_read_transactions l2_write_transactions static_shared_mem_per_block dynamic_shared_mem_per_block"$'\n'* ]]
    [[ "$output" == *"lab07    gld_efficiency gst_efficiency shared_ld_bank_conflict shared_st_bank_conflict dram_read_throughput dram_write_throughput l2_l1_read_throughput"* ]]
    run "$METRICS" list --set lab04
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 17 ]
    [[ "${lines[15]}" == "static_shared_mem_per_block "*" launch__shared_mem_per_block_static "*" byte/block "*"launch attribute"* ]]
    [[ "${lines[16]}" == "dynamic_shared_mem_per_block "*" launch__shared_mem_per_block_dynamic "*" byte/block "*"launch attribute"* ]]
}

# lab04_rgb_shared.csv is hand-made in the shape of a live capture (==PROF== lines, units row,
# grouped digits, a few unmapped device__/launch__ columns): part rgb's six kernels with the
# lab04 set; its shared-memory sizes follow the launchers (v1/v2 1,200 and v3 4,800 bytes of
# static __shared__ window; v4 6,400, v5 5,184, v6 6,528 bytes asked for at launch).

@test "lab04 set on a lab 04 capture: L2 sectors, global byte rates and shared memory per block" {
    run --separate-stderr "$METRICS" parse --set lab04 "$FIX/lab04_rgb_shared.csv"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    # 6 launches x 16 metrics, and the header
    [ "${#lines[@]}" -eq 97 ]
    [ "$(field 0 static_shared_mem_per_block value)" = "1200" ]
    [ "$(field 2 static_shared_mem_per_block value)" = "4800" ]
    [ "$(field 2 dynamic_shared_mem_per_block value)" = "0" ]
    [ "$(field 3 dynamic_shared_mem_per_block value)" = "6400" ]
    [ "$(field 3 static_shared_mem_per_block value)" = "0" ]
    [ "$(field 5 dynamic_shared_mem_per_block unit)" = "byte/block" ]
    [ "$(field 0 l2_read_transactions value)" = "2962304" ]   # read + atom + red
    [ "$(field 0 l2_read_transactions unit)" = "sector" ]
    [ "$(field 4 l2_write_transactions value)" = "1752196" ]
    [ "$(field 5 gld_throughput value)" = "1742009113800.5" ]
    [ "$(field 5 gld_throughput unit)" = "byte/s" ]
    [ "$(field 1 gst_throughput value)" = "135006229815.5" ]
    # DRAM rates and the global sectors (nvprof's gld/gst transactions) beside L2's
    [ "$(field 5 dram_read_throughput value)" = "1126965801372.1" ]
    [ "$(field 0 dram_write_throughput unit)" = "byte/s" ]
    [ "$(field 4 gld_transactions value)" = "9112064" ]
    [ "$(field 4 gst_transactions unit)" = "sector" ]
    # the unmapped launch__ columns (grid size, registers, the driver's share) stay out
    [ "$(printf '%s\n' "$output" | grep -c 'launch__grid_size\|launch__registers\|launch__shared_mem_per_block\s')" -eq 0 ]
}

@test "run --set lab04: ncu is asked for 18 metrics, the L2 sums' members once, the launch attributes by name" {
    FAKE_NCU_OUT="$FIX/lab04_rgb_shared.csv" NCU="$FAKE" run --separate-stderr "$METRICS" run --set lab04 --label v3 --launch-count 1 -- ./lab04 --part rgb --variant 3
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(sed -n '9p' "$FAKE_NCU_ARGS")" = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_write.sum,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic" ]
    [ "$(sed -n '9p' "$FAKE_NCU_ARGS" | tr ',' '\n' | wc -l)" -eq 18 ]
    [[ "${lines[1]}" == v3$'\t'conv_rgb_v1_kernel* ]]
}

@test "table: shared memory per block in bytes with KiB beside, L2 sectors grouped, rates in GB/s" {
    "$METRICS" parse --set lab04 --label v "$FIX/lab04_rgb_shared.csv" >"$BATS_TEST_TMPDIR/p.tsv"
    run "$METRICS" table "$BATS_TEST_TMPDIR/p.tsv"
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" | grep -Eq '^ +static_shared_mem_per_block +4,800  byte/block \(4\.7 KiB\)$'
    printf '%s\n' "$output" | grep -Eq '^ +dynamic_shared_mem_per_block +6,528  byte/block \(6\.4 KiB\)$'
    printf '%s\n' "$output" | grep -Eq '^ +dynamic_shared_mem_per_block +0  byte/block$'
    printf '%s\n' "$output" | grep -Eq '^ +l2_read_transactions +2,962,304  sector$'
    printf '%s\n' "$output" | grep -Eq '^ +gld_throughput +1742\.0  GB/s$'
    printf '%s\n' "$output" | grep -Eq '^ +gst_throughput +143\.1  GB/s$'
}

@test "pivot and plot: shared memory per block gets a panel of its own, in bytes" {
    "$METRICS" parse --set lab04 --label v "$FIX/lab04_rgb_shared.csv" >"$BATS_TEST_TMPDIR/p.tsv"
    mkdir "$BATS_TEST_TMPDIR/piv"
    run "$METRICS" pivot "$BATS_TEST_TMPDIR/p.tsv" "$BATS_TEST_TMPDIR/piv"
    [ "$status" -eq 0 ]
    grep -qx 'panels = "pct cnt thr mem"' "$BATS_TEST_TMPDIR/piv/meta.gp"
    [ "$(cut -f1 "$BATS_TEST_TMPDIR/piv/mem.dat" | tr '\n' ' ')" = "metric static_shared_mem_per_block dynamic_shared_mem_per_block " ]
    [ "$(awk -F'\t' '$1 == "dynamic_shared_mem_per_block" { print $5, $6, $7 }' "$BATS_TEST_TMPDIR/piv/mem.dat")" = "6400 5184 6528" ]
    grep -q '^l2_write_transactions' "$BATS_TEST_TMPDIR/piv/cnt.dat"
    grep -q '^gst_throughput' "$BATS_TEST_TMPDIR/piv/thr.dat"
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    run "$METRICS" plot "$BATS_TEST_TMPDIR/p.tsv" "$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 0 ]
    [ "$(head -c 4 "$BATS_TEST_TMPDIR/out.png" | od -An -c | tr -d ' ')" = '211PNG' ]
    [ "$(head -c 5 "$BATS_TEST_TMPDIR/out.pdf")" = "%PDF-" ]
}

@test "run --set lab07: ncu is asked for exactly the seven metrics, every one comes back" {
    FAKE_NCU_OUT="$FIX/lab07_transpose.csv" NCU="$FAKE" run --separate-stderr "$METRICS" run --set lab07 --label v2 -- ./lab07 --part transpose
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(sed -n '9p' "$FAKE_NCU_ARGS")" = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,lts__t_sectors_srcunit_tex_op_read.sum.per_second" ]
    # 2 launches x 7 metrics, and the header
    [ "${#lines[@]}" -eq 15 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 && $6 == "shared_st_bank_conflict" { print $3 "=" $8 }' | tr '\n' ' ')" = "0=0 1=7340032 " ]
}

@test "pivot: the byte rates, l2_l1_read_throughput included, go to the GB/s panel" {
    "$METRICS" parse --label v1 --set lab07 "$FIX/lab07_transpose.csv" >"$BATS_TEST_TMPDIR/p.tsv"
    mkdir "$BATS_TEST_TMPDIR/piv"
    run "$METRICS" pivot "$BATS_TEST_TMPDIR/p.tsv" "$BATS_TEST_TMPDIR/piv"
    [ "$status" -eq 0 ]
    # one label with two kernels: one series per kernel; means in GB/s
    [ "$(head -n 1 "$BATS_TEST_TMPDIR/piv/thr.dat")" = "$(printf 'metric\tv1: transpose_naive\tv1: transpose_smem')" ]
    [ "$(grep '^l2_l1_read_throughput' "$BATS_TEST_TMPDIR/piv/thr.dat")" = "$(printf 'l2_l1_read_throughput\t601.235\t1402')" ]
    grep -qx 'panels = "pct cnt thr"' "$BATS_TEST_TMPDIR/piv/meta.gp"
}

@test "plot: file names with a single quote and a space work" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    local d="$BATS_TEST_TMPDIR/it's here"
    mkdir -p "$d"
    "$METRICS" parse --label "v1 'naive'" "$FIX/lab07_transpose.csv" >"$d/prof.tsv"
    run "$METRICS" plot "$d/prof.tsv" "$d/o'ut"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$d/o'ut.png" ]
    [ "$(head -c 4 "$d/o'ut.png" | od -An -c | tr -d ' ')" = '211PNG' ]
    [ "$(head -c 5 "$d/o'ut.pdf")" = "%PDF-" ]
}

@test "stdout closed early (| head): no Python traceback" {
    run bash -c '"$1" parse --all "$2" | head -n 1' _ "$METRICS" "$TRANSPOSE"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "${lines[0]}" == kernel* ]]
}
