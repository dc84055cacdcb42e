#!/usr/bin/env bats
# The figures: measured into labs/NN/figures/*.tsv (common/scripts/figures.py
# collect), rendered into each handout's figures block (render), and a handout
# whose block differs from its rendering fails here. Also the demo's index and
# lab 04's time plot on figures measured on the H100 (tests/cli/fixtures/h100-lab04).
load helpers

FIG="$KIT_ROOT/common/scripts/figures.py"
FX="$KIT_ROOT/tests/cli/fixtures/h100-lab04"

@test "every handout has one figures block, and it is the rendering of its lab's figures (its translations' too)" {
    n=0
    for d in "$KIT_ROOT"/labs/*/; do
        [ -f "$d/Makefile" ] || continue
        for h in "$d"/README.md "$d"/README.*.md; do
            [ -f "$h" ] || continue
            [ "$(grep -c '^<!-- figures begin -->$' "$h")" = 1 ] || { echo "$h: no single figures block"; return 1; }
            [ "$(grep -c '^<!-- figures end -->$' "$h")" = 1 ] || { echo "$h: no single end line"; return 1; }
        done
        make -s -C "$d" figures-check || return 1
        n=$((n + 1))
    done
    [ "$n" -ge 7 ]
}

@test "figures-table renders the same block into the handout and each translation; figures-check finds a translation's change" {
    lab="$BATS_TEST_TMPDIR/04_shared_mem"
    mkdir -p "$lab"
    python3 "$FIG" collect --lab-dir "$lab" --machine NVIDIA-H100 "$FX/bench.tsv" >/dev/null
    printf '# Lab\n\n<!-- figures begin -->\nold\n<!-- figures end -->\n' >"$lab/README.md"
    printf '# Labor\n\n<!-- figures begin -->\n<!-- figures end -->\n\nutána\n' >"$lab/README.hu.md"
    printf '# Lab\n' >"$lab/README.it.md"
    run python3 "$FIG" render "$lab/README.md" "$lab/README.hu.md" "$lab/README.it.md" "$lab/figures"
    [ "$status" -eq 2 ]
    [[ $output == *"README.it.md has no <!-- figures begin -->"* ]]
    grep -qx 'old' "$lab/README.md" # nothing written
    rm "$lab/README.it.md"
    run python3 "$FIG" render "$lab/README.md" "$lab/README.hu.md" "$lab/figures" --check
    [ "$status" -eq 1 ]
    [[ $output == *"README.md differs"*"README.hu.md differs"* ]]
    python3 "$FIG" render "$lab/README.md" "$lab/README.hu.md" "$lab/figures"
    cmp <(sed -n '/^<!-- figures begin -->$/,/^<!-- figures end -->$/p' "$lab/README.md") \
        <(sed -n '/^<!-- figures begin -->$/,/^<!-- figures end -->$/p' "$lab/README.hu.md")
    grep -qx 'utána' "$lab/README.hu.md"
    grep -qF '| v6 planar-dp4a | 0.008480 |' "$lab/README.hu.md"
    python3 "$FIG" render "$lab/README.md" "$lab/README.hu.md" "$lab/figures" --check
    sed -i 's/| v6 planar-dp4a | 0.008480 |/| v6 planar-dp4a | 0,008480 |/' "$lab/README.hu.md"
    run python3 "$FIG" render "$lab/README.md" "$lab/README.hu.md" "$lab/figures" --check
    [ "$status" -eq 1 ]
    [[ $output == *"README.hu.md differs"* ]]
    [[ $output != *"README.md differs"* ]]
}

@test "no handout (nor translation) says a figure is not measured yet" {
    run grep -il 'not measured yet' "$KIT_ROOT"/labs/*/README*.md
    [ "$status" -eq 1 ]
}

@test "collect: the H100's lab 04 bench, peers and sweep become figures with their provenance" {
    lab="$BATS_TEST_TMPDIR/04_shared_mem"
    mkdir -p "$lab"
    run python3 "$FIG" collect --lab-dir "$lab" --machine NVIDIA-H100 --commit abc123 --driver 580.1 \
        "$FX/bench.tsv" "$FX/peers.tsv" "$FX/sweep.tsv"
    [ "$status" -eq 0 ]
    f="$lab/figures/NVIDIA-H100.tsv"
    grep -qx '# commit: abc123' "$f"
    grep -qx '# driver: 580.1' "$f"
    grep -q '^# gpu: NVIDIA H100 80GB HBM3' "$f"
    grep -q '^# date: 2026-' "$f"
    # v6's median kernel time (column 10 of the bench row) to four figures
    grep -qP '^part rgb, 1248x936, laplace5\tv6 planar-dp4a\tkernel ms\t0.008480$' "$f"
    # sep v1 measured twice, told apart by its config
    grep -qP '^part sep, 2048x2048, gaussian r32\tv1 global \(pinned=0\)\ttotal ms\t' "$f"
    # lab 03's fastest in a table of its own; the ceiling of the runs
    grep -qP '^lab 03, 1248x936, laplace5\tv6 planar-words\tkernel ms\t0.01200$' "$f"
    grep -qP '^ceilings\t.*\tGB/s\t2887$' "$f"
    # the CuPy peer against the kit's fastest at its size: 0.2038 / 0.00848
    grep -qP '^peers\tcupyx.ndimage.correlate \(rgb.*\tx the kit.s fastest\t24.03$' "$f"
    # the sweep: a row per variant and radius
    grep -qP '^sweep\tv4 registers, radius 80\tkernel_ms\t0.1346$' "$f"
}

@test "collect: a profiler's counts keep their digits as written, other values four figures, NA as it is" {
    lab="$BATS_TEST_TMPDIR/03_global_mem"
    mkdir -p "$lab"
    printf 'label\tkernel\tlaunch\tblock\tgrid\tlegacy\tmetric\tvalue\tunit\n%s\n%s\n%s\n' \
        $'v1\tk\t0\t(32,8,1)\t(9,9,1)\tshared_ld_bank_conflict\tm1\t736\t-' \
        $'v1\tk\t0\t(32,8,1)\t(9,9,1)\tgld_efficiency\tm2\t84.716\t%' \
        $'v1\tk\t0\t(32,8,1)\t(9,9,1)\tdram_read_throughput\tm3\tNA\tbyte/s' >"$BATS_TEST_TMPDIR/profile.tsv"
    run python3 "$FIG" collect --lab-dir "$lab" --machine X --commit abc123 --driver 1 "$BATS_TEST_TMPDIR/profile.tsv"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    f="$lab/figures/X.tsv"
    grep -qP '^profiler metrics\tv1\tshared_ld_bank_conflict\t736$' "$f" || { cat "$f"; false; }
    grep -qP '^profiler metrics\tv1\tgld_efficiency \(%\)\t84.72$' "$f"
    grep -qP '^profiler metrics\tv1\tdram_read_throughput \(byte/s\)\tNA$' "$f"
}

@test "render writes the tables between the markers and check finds a changed figure" {
    lab="$BATS_TEST_TMPDIR/04_shared_mem"
    mkdir -p "$lab"
    python3 "$FIG" collect --lab-dir "$lab" --machine NVIDIA-H100 "$FX/bench.tsv" >/dev/null
    printf '# Lab\n\nbefore\n\n<!-- figures begin -->\nold\n<!-- figures end -->\n\nafter\n' >"$lab/README.md"
    run python3 "$FIG" render "$lab/README.md" "$lab/figures" --check
    [ "$status" -eq 1 ]
    [[ $output == *"README.md differs"* ]]
    python3 "$FIG" render "$lab/README.md" "$lab/figures"
    grep -qx 'before' "$lab/README.md"
    grep -qx 'after' "$lab/README.md"
    grep -qx '#### Measured on NVIDIA H100 80GB HBM3' "$lab/README.md"
    grep -qF '| v6 planar-dp4a | 0.008480 |' "$lab/README.md"
    python3 "$FIG" render "$lab/README.md" "$lab/figures" --check
    sed -i 's/| v6 planar-dp4a | 0.008480 |/| v6 planar-dp4a | 0.007 |/' "$lab/README.md"
    run python3 "$FIG" render "$lab/README.md" "$lab/figures" --check
    [ "$status" -eq 1 ]
}

@test "render: three or more tables of one size and a filter each become one table of kernel and total ms" {
    d="$BATS_TEST_TMPDIR/figs"
    mkdir -p "$d"
    {
        printf '# machine: X\ntable\trow\tcolumn\tvalue\n'
        for f in edge3 sharpen3 gauss5; do
            for c in "kernel ms" "total ms" "GB/s"; do printf '300x300, %s\tv1\t%s\t1.5\n' "$f" "$c"; done
        done
        printf '300x300, gauss5\tv7\tkernel ms\t9\n'
        for f in edge3 gauss5; do printf '2000x2000, %s\tv1\tkernel ms\t2\n2000x2000, %s\tv1\ttotal ms\t3\n' "$f" "$f"; done
    } >"$d/X.tsv"
    printf '<!-- figures begin -->\n<!-- figures end -->\n' >"$BATS_TEST_TMPDIR/R.md"
    python3 "$FIG" render "$BATS_TEST_TMPDIR/R.md" "$d"
    run cat "$BATS_TEST_TMPDIR/R.md"
    [[ $output == *"**300x300 (each filter: kernel ms, total ms)**"* ]]
    [[ $output == *"| | edge3 kernel ms | edge3 total ms | sharpen3 kernel ms | sharpen3 total ms | gauss5 kernel ms | gauss5 total ms |"* ]]
    [[ $output == *"| v1 | 1.5 | 1.5 | 1.5 | 1.5 | 1.5 | 1.5 |"* ]]
    [[ $output == *"| v7 |  |  |  |  | 9 |  |"* ]]
    [[ $output != *"GB/s"* ]]
    # two tables of a size are not a family: they stay as they are
    [[ $output == *"**2000x2000, edge3**"* ]]
    [[ $output == *"**2000x2000, gauss5**"* ]]
}

@test "render: three or more tables of the same rows become one table per value column, the inputs across, a status folded in" {
    d="$BATS_TEST_TMPDIR/figs3"
    mkdir -p "$d"
    {
        printf '# machine: X\ntable\trow\tcolumn\tvalue\n'
        printf '256x192, laplace5\tv1 naive\tms\t7.408\n256x192, laplace5\tv1 naive\tGB/s\t0.2162\n'
        printf '256x192, laplace5\tv2 loop\tms\t1.950\n256x192, laplace5\tv2 loop\tGB/s\t0.8215\n'
        printf '256x192, laplace5\tv3 separable\tstatus\tunsupported\n'
        printf '256x192, gauss5\tv1 naive\tms\t8.494\n256x192, gauss5\tv1 naive\tGB/s\t0.1886\n'
        printf '256x192, gauss5\tv2 loop\tms\t1.438\n256x192, gauss5\tv2 loop\tGB/s\t1.114\n'
        printf '256x192, gauss5\tv3 separable\tms\t2.440\n256x192, gauss5\tv3 separable\tGB/s\t0.6565\n'
        printf '640x480, laplace5\tv1 naive\tms\t47.71\n640x480, laplace5\tv1 naive\tGB/s\t0.2076\n'
        printf '640x480, laplace5\tv2 loop\tms\t14.21\n640x480, laplace5\tv2 loop\tGB/s\t0.6969\n'
        printf '640x480, laplace5\tv3 separable\tstatus\tunsupported\n'
        # two tables of the same rows are not a family
        printf 'n=10\tw1\tms\t1\nn=20\tw1\tms\t2\n'
        # three tables of the same rows, one of them in another order: not a family
        printf 'q, b\tu1\tms\t3\nq, b\tu2\tms\t4\nr, c\tu1\tms\t5\nr, c\tu2\tms\t6\ns, d\tu2\tms\t7\ns, d\tu1\tms\t8\n'
        printf 'ceilings\tcopy\tGB/s\t2897\n'
    } >"$d/X.tsv"
    printf '<!-- figures begin -->\n<!-- figures end -->\n' >"$BATS_TEST_TMPDIR/R3.md"
    python3 "$FIG" render "$BATS_TEST_TMPDIR/R3.md" "$d"
    run cat "$BATS_TEST_TMPDIR/R3.md"
    # every title once, in the order of the tables: the family where its first table stood
    [ "$(grep '^\*\*' <<<"$output" | tr '\n' ';')" = '**ms, by input**;**GB/s, by input**;**n=10**;**n=20**;**q, b**;**r, c**;**s, d**;**ceilings**;' ]
    [[ $output == *"| | 256x192, laplace5 | 256x192, gauss5 | 640x480, laplace5 |"* ]]
    [[ $output == *"| v1 naive | 7.408 | 8.494 | 47.71 |"* ]]
    [[ $output == *"| v3 separable | unsupported | 2.440 | unsupported |"* ]]
    [[ $output == *"| v2 loop | 0.8215 | 1.114 | 0.6969 |"* ]]
    [[ $output == *"| v3 separable | unsupported | 0.6565 | unsupported |"* ]]
    [[ $output != *"| status |"* ]]
    [[ $output == *"| u2 | 7 |"* ]]
}

@test "render: a profiler's rates in byte/s read in GB/s, its counts and a rate not measured as written" {
    mkdir -p "$BATS_TEST_TMPDIR/f"
    printf '# machine: X\n# gpu: X, 1 SMs\ntable\trow\tcolumn\tvalue\n%s\n%s\n%s\n%s\n%s\n%s\n' \
        $'profiler metrics\tv1\tgld_throughput (byte/s)\t562408436967' \
        $'profiler metrics\tv1\tgld_transactions (sector)\t6919311' \
        $'profiler metrics\tv1\tdram_read_throughput (byte/s)\t999' \
        $'profiler metrics\tv2\tgld_throughput (byte/s)\tNA' \
        $'profiler metrics\tv2\tgld_transactions (sector)\t0' \
        $'profiler metrics\tv2\tdram_read_throughput (byte/s)\t4101000000000' >"$BATS_TEST_TMPDIR/f/X.tsv"
    printf '<!-- figures begin -->\n<!-- figures end -->\n' >"$BATS_TEST_TMPDIR/R.md"
    python3 "$FIG" render "$BATS_TEST_TMPDIR/R.md" "$BATS_TEST_TMPDIR/f" >/dev/null
    grep -qxF '| | gld_throughput (GB/s) | gld_transactions (sector) | dram_read_throughput (GB/s) |' "$BATS_TEST_TMPDIR/R.md" ||
        { cat "$BATS_TEST_TMPDIR/R.md"; false; }
    grep -qxF '| v1 | 562.4 | 6919311 | 0.0000009990 |' "$BATS_TEST_TMPDIR/R.md" ||
        { cat "$BATS_TEST_TMPDIR/R.md"; false; }
    grep -qxF '| v2 | NA | 0 | 4101 |' "$BATS_TEST_TMPDIR/R.md"
    ! grep -q 'byte/s' "$BATS_TEST_TMPDIR/R.md"
}

@test "render: a size's filters of differing rows stay one table by size; of the same rows, one table per column, their common name in the title" {
    d="$BATS_TEST_TMPDIR/figs5"
    mkdir -p "$d"
    {
        printf '# machine: X\ntable\trow\tcolumn\tvalue\n'
        for f in a b c d; do printf '300x300, %s\tv1\tkernel ms\t1\n300x300, %s\tv1\ttotal ms\t2\n' "$f" "$f"; done
        printf '300x300, d\tv7\tkernel ms\t3\n300x300, d\tv7\ttotal ms\t4\n'
        for f in a b c; do
            for c in "kernel ms;5" "total ms;6" "GB/s;7"; do printf '900x900, %s\tv1\t%s\t%s\n' "$f" "${c%;*}" "${c#*;}"; done
        done
    } >"$d/X.tsv"
    printf '<!-- figures begin -->\n<!-- figures end -->\n' >"$BATS_TEST_TMPDIR/R5.md"
    python3 "$FIG" render "$BATS_TEST_TMPDIR/R5.md" "$d"
    run cat "$BATS_TEST_TMPDIR/R5.md"
    [ "$(grep '^\*\*' <<<"$output" | tr '\n' ';')" = '**300x300 (each filter: kernel ms, total ms)**;**900x900: kernel ms, by input**;**900x900: total ms, by input**;**900x900: GB/s, by input**;' ]
    [[ $output == *"| v7 |  |  |  |  |  |  | 3 | 4 |"* ]]
    [[ $output == *"| | a | b | c |"*"| v1 | 7 | 7 | 7 |"* ]]
}

@test "render: a parameter with three or more values across a table's rows becomes its columns; three value columns stay rows" {
    d="$BATS_TEST_TMPDIR/figs4"
    mkdir -p "$d"
    {
        printf '# machine: X\ntable\trow\tcolumn\tvalue\n'
        t='4992x3744, laplace5'
        for r in 'v0 scalar;1842;0.3250' 'v1 omp-rows (threads=1);2326;0.2574' 'v5 wide (isa=avx512 threads=1);102.0;5.870' \
                 'v1 omp-rows (threads=2);1235;0.4845' 'v5 wide (isa=avx512 threads=2);50.34;11.89' \
                 'v1 omp-rows (threads=16);149.5;4.004' 'v5 wide (isa=avx512 threads=16);18.15;32.98' \
                 'v5 wide (isa=sse threads=16);29.09;20.58' \
                 'peer cv (threads=1 used=1);242.4;2.470' 'peer cv (threads=16 used=16);32.58;18.37'; do
            IFS=';' read -r row ms gbs <<<"$r"
            printf '%s\t%s\tms\t%s\n%s\t%s\tGB/s\t%s\n' "$t" "$row" "$ms" "$t" "$row" "$gbs"
        done
        for n in 1 2 4; do
            for c in "kernel ms;1" "total ms;2" "GB/s;3"; do
                printf 'wide\tv1 omp-rows (threads=%s)\t%s\t%s%s\n' "$n" "${c%;*}" "${c#*;}" "$n"
            done
            printf 'states\tv2 (threads=%s)\tstatus\tunsupported%s\n' "$n" "$n"
        done
    } >"$d/X.tsv"
    printf '<!-- figures begin -->\n<!-- figures end -->\n' >"$BATS_TEST_TMPDIR/R4.md"
    python3 "$FIG" render "$BATS_TEST_TMPDIR/R4.md" "$d"
    run cat "$BATS_TEST_TMPDIR/R4.md"
    [[ $output == *"**4992x3744, laplace5**"* ]]
    [[ $output == *"| | ms | ms threads=1 | ms threads=2 | ms threads=16 | GB/s | GB/s threads=1 | GB/s threads=2 | GB/s threads=16 |"* ]]
    [[ $output == *"| v0 scalar | 1842 |  |  |  | 0.3250 |  |  |  |"* ]]
    [[ $output == *"| v1 omp-rows |  | 2326 | 1235 | 149.5 |  | 0.2574 | 0.4845 | 4.004 |"* ]]
    [[ $output == *"| v5 wide (isa=avx512) |  | 102.0 | 50.34 | 18.15 |  | 5.870 | 11.89 | 32.98 |"* ]]
    [[ $output == *"| v5 wide (isa=sse) |  |  |  | 29.09 |  |  |  | 20.58 |"* ]]
    # two values of threads for the peer: its rows stay as they are, in their place
    [[ $output == *"| v5 wide (isa=sse) |"*"| peer cv (threads=1 used=1) | 242.4 |  |  |  | 2.470 |  |  |  |"* ]]
    [[ $output == *"| peer cv (threads=16 used=16) | 32.58 |"* ]]
    [[ $output == *"| v0 scalar |"*"| v1 omp-rows |"*"| v5 wide (isa=avx512) |"* ]]
    # three value columns: no pivot
    [[ $output == *"| | kernel ms | total ms | GB/s |"* ]]
    [[ $output == *"| v1 omp-rows (threads=4) | 14 | 24 | 34 |"* ]]
    # a status and no value column: its rows stay, every status shown
    [[ $output == *"| v2 (threads=1) | unsupported1 |"*"| v2 (threads=4) | unsupported4 |"* ]]
}

@test "render: one machine's tables, the figures measured last; the other machines named in a line" {
    d="$BATS_TEST_TMPDIR/figs2"
    mkdir -p "$d"
    for m in "NVIDIA-H100 2026-11-20" "NVIDIA-H200 2026-12-01" "NVIDIA-A100 2026-10-02"; do
        set -- $m
        printf '# machine: %s\n# gpu: %s, compute capability 9.0\n# date: %sT10:00:00Z\ntable\trow\tcolumn\tvalue\nt\tv1\tkernel ms\t%s\n' \
            "$1" "${1/-/ }" "$2" "${2: -2}" >"$d/$1.tsv"
    done
    printf '<!-- figures begin -->\n<!-- figures end -->\n' >"$BATS_TEST_TMPDIR/R2.md"
    python3 "$FIG" render "$BATS_TEST_TMPDIR/R2.md" "$d"
    run cat "$BATS_TEST_TMPDIR/R2.md"
    [ "$(grep -c '^#### Measured on' <<<"$output")" -eq 1 ]
    [[ $output == *"#### Measured on NVIDIA H200"* ]]
    [[ $output == *"| v1 | 01 |"* ]]
    [[ $output == *'Also measured: NVIDIA A100, 2026-10-02 (`figures/NVIDIA-A100.tsv`); NVIDIA H100, 2026-11-20 (`figures/NVIDIA-H100.tsv`).'* ]]
}

@test "render: a handout without a figures block is refused with exit 2" {
    printf '# Lab\n' >"$BATS_TEST_TMPDIR/README.md"
    run python3 "$FIG" render "$BATS_TEST_TMPDIR/README.md" "$BATS_TEST_TMPDIR"
    [ "$status" -eq 2 ]
    [[ $output == *"no <!-- figures begin -->"* ]]
}

@test "collect: nothing measured (a missing file, a header only) is an error, no file written" {
    lab="$BATS_TEST_TMPDIR/03_global_mem"
    mkdir -p "$lab"
    grep -v -P '^\d' "$FX/bench.tsv" >"$BATS_TEST_TMPDIR/empty.tsv"
    run python3 "$FIG" collect --lab-dir "$lab" --machine X "$BATS_TEST_TMPDIR/empty.tsv" "$BATS_TEST_TMPDIR/none.tsv"
    [ "$status" -eq 1 ]
    [[ $output == *"no $BATS_TEST_TMPDIR/none.tsv"* ]]
    [ ! -e "$lab/figures/X.tsv" ]
}

@test "lab 04's time plot draws from the H100's figures, and with part rgb alone" {
    command -v gnuplot >/dev/null || skip "no gnuplot"
    out="$BATS_TEST_TMPDIR/p"
    mkdir -p "$out"
    cp "$FX/bench.tsv" "$FX/peers.tsv" "$out/"
    run make -s -C "$KIT_ROOT/labs/04_shared_mem" plot OUT="$out"
    [ "$status" -eq 0 ]
    is_png "$out/time.png"
    [ -s "$out/time.pdf" ]
    grep -v -P '\tsep\t' "$FX/bench.tsv" >"$out/bench.tsv"
    rm -f "$out/time.png"
    run make -s -C "$KIT_ROOT/labs/04_shared_mem" plot OUT="$out"
    [ "$status" -eq 0 ]
    is_png "$out/time.png"
    [[ $output != *"invalid"* ]]
}

# a lab folder for the demo: its demo target runs RECIPE
fake_lab() {
    mkdir -p "$BATS_TEST_TMPDIR/labs/$1"
    printf '# Lab %s: a fake\n' "$1" >"$BATS_TEST_TMPDIR/labs/$1/README.md"
    printf 'demo:\n\t%s\n' "$2" >"$BATS_TEST_TMPDIR/labs/$1/Makefile"
}

@test "demo: a failed lab is named at the top of the index and on the console, with its log's end" {
    fake_lab 91_good 'printf "\x89PNG\r\n\x1a\n" > $(OUT)/time.png; echo fine'
    fake_lab 92_bad 'echo "step one"; echo "the plot broke: x range is invalid"; exit 3'
    fake_lab 93_nogpu 'echo "no CUDA device: built, not run"; exit 77'
    run env KIT_DEMO_OUT="$BATS_TEST_TMPDIR/demo" KIT_DEMO_GRADING=0 KIT_GNUPLOT=no-such-gnuplot \
        KIT_DEMO_LABS="$BATS_TEST_TMPDIR/labs/91_good $BATS_TEST_TMPDIR/labs/92_bad $BATS_TEST_TMPDIR/labs/93_nogpu" \
        "$KIT_ROOT/common/scripts/demo.sh"
    [ "$status" -eq 1 ]
    [[ $output == *"92_bad"*"FAILED (exit 2"* ]]
    [[ $output == *"x range is invalid"* ]]
    [[ $output == *"demo: FAILED: 92_bad"* ]]
    [ "$(grep -c 'gnuplot is not installed' <<<"$output")" -eq 1 ]
    idx="$BATS_TEST_TMPDIR/demo/index.md"
    # the failure comes before any lab's section, with its log's last lines
    first_fail=$(grep -n 'FAILED: 92_bad' "$idx" | head -n 1 | cut -d: -f1)
    first_lab=$(grep -n '^## ' "$idx" | head -n 1 | cut -d: -f1)
    [ "$first_fail" -lt "$first_lab" ]
    grep -q 'x range is invalid' "$idx"
    grep -q 'Note: gnuplot is not installed' "$idx"
    grep -q 'Note: no CUDA device here.*93_nogpu' "$idx"
    grep -qF '![time.png](91_good/time.png)' "$idx"
    grep -q '^## 92_bad: FAILED' "$idx"
}

@test "demo: every lab passing exits 0 with no FAILED line" {
    fake_lab 91_good 'echo fine'
    run env KIT_DEMO_OUT="$BATS_TEST_TMPDIR/demo" KIT_DEMO_GRADING=0 \
        KIT_DEMO_LABS="$BATS_TEST_TMPDIR/labs/91_good" "$KIT_ROOT/common/scripts/demo.sh"
    [ "$status" -eq 0 ]
    [[ $output != *FAILED* ]]
    ! grep -q FAILED "$BATS_TEST_TMPDIR/demo/index.md"
}

@test "demo: trace.tsv holds every recipe line's seconds, the slowest are said, the index links it" {
    fake_lab 91_good 'sleep 0.3; echo fine'
    run env KIT_DEMO_OUT="$BATS_TEST_TMPDIR/demo" KIT_DEMO_GRADING=0 \
        KIT_DEMO_LABS="$BATS_TEST_TMPDIR/labs/91_good" "$KIT_ROOT/common/scripts/demo.sh"
    [ "$status" -eq 0 ]
    [[ $output == *"demo: slowest:"*"91_good"*"sleep 0.3; echo fine"* ]]
    t="$BATS_TEST_TMPDIR/demo/trace.tsv"
    [ "$(head -n 1 "$t")" = "$(printf 'seconds\tlevel\tfolder\tline')" ]
    run awk -F'\t' '$3 == "91_good" && $4 == "sleep 0.3; echo fine" && $1 >= 0.3 && $1 < 30' "$t"
    [ -n "$output" ]
    grep -qF '[trace.tsv](trace.tsv)' "$BATS_TEST_TMPDIR/demo/index.md"
    [ ! -e "$BATS_TEST_TMPDIR/demo/.trace" ]
}

# fake_gpu_kit: $kit, the working tree as it is (a clone would take HEAD, which need not be
# it) without .git, build outputs and programs, as the GPU machine's copy of the tree; $bin,
# a folder for fakes, holding an nvidia-smi of a "Fake GPU 9"
fake_gpu_kit() {
    kit="$BATS_TEST_TMPDIR/kit" bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$kit" "$bin"
    tar -C "$KIT_ROOT" --exclude=./.git --exclude=./.deps --exclude=build --exclude=out \
        --exclude=./tests/log --exclude=__pycache__ --no-wildcards-match-slash \
        --exclude='./labs/*/lab[0-9][0-9]' --exclude='./labs/*/lab[0-9][0-9]-*' -cf - . | tar -C "$kit" -xf -
    printf '#!/bin/sh\ncase "$*" in *driver_version*) echo 999.1 ;; *) echo "Fake GPU 9" ;; esac\n' >"$bin/nvidia-smi"
    chmod +x "$bin/nvidia-smi"
}

@test "figures.sh: a lab measured from the sources it has now is up to date, in a copy without .git too; a change measures it again" {
    fake_gpu_kit
    printf '#!/bin/sh\necho "make: measuring $*"; exit 1\n' >"$bin/make"
    chmod +x "$bin/nvidia-smi" "$bin/make"
    run "$kit/common/scripts/figures.sh" --sources-hash 03
    [ "$status" -eq 0 ]
    [[ $output =~ ^[0-9a-f]{16}$ ]]
    hash=$output
    mkdir -p "$kit/labs/03_global_mem/figures"
    printf '# commit: 0123456789ab\n# sources: %s\ntable\trow\tcolumn\tvalue\n' "$hash" \
        >"$kit/labs/03_global_mem/figures/Fake-GPU-9.tsv"
    echo "a change to the handout is no change to what runs" >>"$kit/labs/03_global_mem/README.md"
    mkdir -p "$kit/labs/03_global_mem/out" && echo x >"$kit/labs/03_global_mem/out/x.c"   # nor is an output
    sed -i 's/^demo:.*/&\n\t@echo the demo changed/' "$kit/labs/03_global_mem/Makefile"   # nor the demo
    grep -q 'the demo changed' "$kit/labs/03_global_mem/Makefile"
    run env PATH="$bin:$PATH" "$kit/common/scripts/figures.sh" 03
    [ "$status" -eq 0 ]
    [[ $output == *"machine Fake-GPU-9, driver 999.1"* ]]
    [[ $output == *"03_global_mem      up to date (measured from sources $hash)"* ]]
    h01=$("$kit/common/scripts/figures.sh" --sources-hash 01)
    h06=$("$kit/common/scripts/figures.sh" --sources-hash 06)
    # a metric more in lab 03's set (what its profile reads): lab 03 measures again; lab 06
    # (another set) and lab 01 (no profile) do not
    printf 'lab03\tgst_throughput\n' >>"$kit/grading/metric_sets.tsv"
    "$kit/grading/metrics" list --set lab03 | grep -q '^gst_throughput'
    [ "$("$kit/common/scripts/figures.sh" --sources-hash 03)" != "$hash" ]
    [ "$("$kit/common/scripts/figures.sh" --sources-hash 06)" = "$h06" ]
    [ "$("$kit/common/scripts/figures.sh" --sources-hash 01)" = "$h01" ]
    # the GPU activity records: lab 05 builds them into its binary, lab 06 does not
    h05=$("$kit/common/scripts/figures.sh" --sources-hash 05)
    echo "/* changed */" >>"$kit/common/cupti_trace.c"
    [ "$("$kit/common/scripts/figures.sh" --sources-hash 06)" = "$h06" ]
    [ "$("$kit/common/scripts/figures.sh" --sources-hash 05)" != "$h05" ]
    echo "/* changed */" >>"$kit/common/compare.h"
    run "$kit/common/scripts/figures.sh" --sources-hash 03
    [ "$output" != "$hash" ]
    run env PATH="$bin:$PATH" "$kit/common/scripts/figures.sh" 03
    [ "$status" -eq 1 ]
    [[ $output == *"03_global_mem      FAILED"* ]]
    [[ $output == *"make: measuring -s -C labs/03_global_mem/ figures MACHINE=Fake-GPU-9"* ]]
    [[ $output == *"SOURCES="* ]]
    run env PATH="$bin:$PATH" KIT_FIGURES_FORCE=1 "$kit/common/scripts/figures.sh" 03
    [[ $output == *"make: measuring"* ]]
    # gpu-run.sh's way: a lab with no figures of this GPU committed is said and left, not
    # measured; one with figures (stale here) is measured again
    rm -f "$kit"/labs/01_*/figures/Fake-GPU-9.tsv
    run env PATH="$bin:$PATH" KIT_FIGURES_KNOWN=1 "$kit/common/scripts/figures.sh" 01 03
    [[ $output == *"01_cpu_conv        not measured: no figures of Fake-GPU-9 are committed (make figures measures them)"* ]]
    [ "$(grep -c 'make: measuring' <<<"$output")" -eq 1 ]
    [[ $output == *"make: measuring -s -C labs/03_global_mem/ figures"* ]]
}

@test "figures.sh under a deadline begins only the labs whose last measuring fits, records its seconds; gpu-run.sh keeps the later steps their time" {
    fake_gpu_kit
    # make figures, faked: the lab's figures written as collect writes them (sources given)
    cat >"$bin/make" <<'SH'
#!/bin/bash
dir="" src="" fig=0
for a in "$@"; do
    case $a in labs/*) dir=$a ;; SOURCES=*) src=${a#SOURCES=} ;; figures) fig=1 ;; esac
done
[ "$fig" = 1 ] || exit 0
echo "make: measuring $dir"
printf '# commit: 0123456789ab\n# sources: %s\ntable\trow\tcolumn\tvalue\nt\tr\tc\t1\n' "$src" >"$dir/figures/Fake-GPU-9.tsv"
SH
    chmod +x "$bin/nvidia-smi" "$bin/make"
    # both stale; lab 03 took 400 s when last measured, lab 06 never said (a guess: 150 s)
    mkdir -p "$kit"/labs/0{3,6}_*/figures
    printf '# commit: 0123456789ab\n# sources: 0000000000000000\n# seconds: 400\ntable\trow\tcolumn\tvalue\n' \
        >"$(echo "$kit"/labs/03_*/figures)/Fake-GPU-9.tsv"
    printf '# commit: 0123456789ab\n# sources: 0000000000000000\ntable\trow\tcolumn\tvalue\n' \
        >"$(echo "$kit"/labs/06_*/figures)/Fake-GPU-9.tsv"
    before=$(cat "$kit"/labs/03_*/figures/Fake-GPU-9.tsv)
    run env PATH="$bin:$PATH" KIT_FIGURES_DEADLINE=200 "$kit/common/scripts/figures.sh" 03 06
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ $output == *"03_global_mem      not measured: it takes about 400 s, and "*" s are left before the deadline"* ]]
    [[ $output == *"06_matvec          ok"* ]]
    [ "$(grep -c 'make: measuring' <<<"$output")" -eq 0 ]      # make's output goes to the log
    [[ $output == *"not measured before the deadline: 03_global_mem"* ]]
    [ "$(cat "$kit"/labs/03_*/figures/Fake-GPU-9.tsv)" = "$before" ]
    # lab 06 measured: its seconds beside the provenance, the figures read as before
    t6=$(echo "$kit"/labs/06_*/figures/Fake-GPU-9.tsv)
    [[ $(sed -n 3p "$t6") =~ ^#\ seconds:\ [0-9]$ ]] || { cat "$t6"; false; }
    [ "$(sed -n 2p "$t6")" = "# sources: $("$kit/common/scripts/figures.sh" --sources-hash 06)" ]
    python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import figures; p, r = figures.read_figures(sys.argv[2]); assert r == [["t", "r", "c", "1"]], r' \
        "$kit/common/scripts" "$t6"
    run env PATH="$bin:$PATH" KIT_FIGURES_DEADLINE=soon "$kit/common/scripts/figures.sh" 03
    [ "$status" -eq 2 ]
    # gpu-run.sh: a deadline of 400 s keeps the tests 270 s, so lab 03 (400 s) is not begun,
    # and the summary says so; without tests after it, the same 400 s measure it
    run env PATH="$bin:$PATH" KIT_GPU_DEADLINE=400 KIT_GPU_OUT="$BATS_TEST_TMPDIR/g1" \
        "$kit/common/scripts/gpu-run.sh" figures:03 tests:none
    grep -q 'not measured: it takes about 400 s, and 1[0-9][0-9] s are left' "$BATS_TEST_TMPDIR/g1/figures.log"
    [[ $output == *"figures "*"exit 0"*"(1 stale, not measured: no time before the later steps)"* ]]
    sed -i 's/^# seconds: 400$/# seconds: 390/' "$kit"/labs/03_*/figures/Fake-GPU-9.tsv
    run env PATH="$bin:$PATH" KIT_GPU_DEADLINE=400 KIT_GPU_OUT="$BATS_TEST_TMPDIR/g2" \
        "$kit/common/scripts/gpu-run.sh" figures:03
    grep -q '03_global_mem *ok' "$BATS_TEST_TMPDIR/g2/figures.log"
}
