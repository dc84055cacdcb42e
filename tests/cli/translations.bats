#!/usr/bin/env bats
# The handouts in the course guides' languages (issue 33): every lab's
# README.LANG.md (el, ru, it, hu) in step with its English README.md
# (common/scripts/handout_sync.py), the glossary (docs/glossary.md, rendered
# by common/scripts/glossary.py from docs/glossary/terms.txt and LANG.tsv),
# and make dist-student LANG=..: a student's copy in one language.
load helpers

SYNC="$KIT_ROOT/common/scripts/handout_sync.py"
GLOSS="$KIT_ROOT/common/scripts/glossary.py"
EN01="$KIT_ROOT/labs/01_cpu_conv/README.md"

# the handouts' languages (el ru it hu), from the one list the kit has
langs() { python3 "$GLOSS" langs | cut -f1; }

# fake_translation EN OUT: a stand-in for a translation of the handout EN, in
# step with it: EN with the line of links under its title
fake_translation() {
    awk 'NR == 1 { print; print ""; print "*[English version](README.md) · [Glossary](../../docs/glossary.md)*"; next }
         { print }' "$1" >"$2"
}

# fake_tsv OUT: a stand-in for a LANG.tsv that covers terms.txt
fake_tsv() {
    grep -v '^#' "$KIT_ROOT/docs/glossary/terms.txt" | grep -v '^[[:space:]]*$' |
        awk '{ printf "%s\tτ-%s\n", $0, $0 }' >"$1"
}

# planted HOW: a fake translation of lab 01's handout with a sed script
# applied; check it against the English (status and output for the test)
planted() {
    local t="$BATS_TEST_TMPDIR/README.xx.md"
    fake_translation "$EN01" "$t.in"
    sed "$1" "$t.in" >"$t"
    if cmp -s "$t.in" "$t"; then echo "the plant changed nothing: $1"; return 1; fi
    run python3 "$SYNC" check "$EN01" "$t"
}

@test "every lab has its handout in every language, each in step with the English one" {
    local l g out bad="" n=0 tr
    cd "$KIT_ROOT"
    for l in $(kit_labs); do
        tr=()
        for g in $(langs); do tr+=("labs/$l/README.$g.md"); done
        n=$((n + ${#tr[@]}))
        # one line per missing or changed item, naming the lab and the language (the file)
        out=$(python3 "$SYNC" check "labs/$l/README.md" "${tr[@]}") || bad="$bad$out"$'\n'
    done
    [ "$n" -ge 28 ]
    [ -z "$bad" ] || { printf '%s' "$bad" | head -n 80; false; }
}

@test "handout_sync: a fake translation in step with each lab's handout passes, its lines may end elsewhere; items counts what it compares" {
    local l
    for l in $(kit_labs); do
        fake_translation "$KIT_ROOT/labs/$l/README.md" "$BATS_TEST_TMPDIR/README.xx.md"
        run python3 "$SYNC" check "$KIT_ROOT/labs/$l/README.md" "$BATS_TEST_TMPDIR/README.xx.md"
        [ "$status" -eq 0 ] && [ -z "$output" ] || { echo "$l: $output"; false; }
    done
    # a code span that goes on over a line's end in English may end its line elsewhere
    en2="$KIT_ROOT/labs/02_omp_sse/README.md"
    grep -q 'with `--filter box$' "$en2"
    fake_translation "$en2" "$BATS_TEST_TMPDIR/README.xx.md.in"
    sed '/with `--filter box$/{N;s/\n */ /}' "$BATS_TEST_TMPDIR/README.xx.md.in" >"$BATS_TEST_TMPDIR/README.xx.md"
    run cmp -s "$BATS_TEST_TMPDIR/README.xx.md.in" "$BATS_TEST_TMPDIR/README.xx.md"
    [ "$status" -ne 0 ] # the reflow changed the file
    run python3 "$SYNC" check "$en2" "$BATS_TEST_TMPDIR/README.xx.md"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    sed -i 's/with `--filter box --radius 4`/with --filter box --radius 4/' "$BATS_TEST_TMPDIR/README.xx.md"
    run python3 "$SYNC" check "$en2" "$BATS_TEST_TMPDIR/README.xx.md"
    [ "$status" -eq 1 ]
    [[ $output == *"code span --filter box --radius 4 missing (1 of 1)"* ]]
    run python3 "$SYNC" items "$EN01"
    [ "$status" -eq 0 ]
    [[ $output == *"code blocks 5"* ]]
    [[ $output == *"questions 5"* ]]
}

@test "handout_sync catches a dropped question, renumbered questions, a changed code block and a changed heading" {
    planted '/^3\. Which of the nested loops/d'
    [ "$status" -eq 1 ]
    [[ $output == *"README.xx.md: 4 numbered questions, the English has 5"* ]]
    planted 's/^3\. Which of the nested loops/4. Which of the nested loops/'
    [ "$status" -eq 1 ]
    [[ $output == *"the questions are numbered 1 2 4 4 5, the English 1 2 3 4 5"* ]]
    planted '0,/^make check/s/^make check/make check V=1/'
    [ "$status" -eq 1 ]
    [[ $output == *"code block "*" differs from the English"* ]]
    planted 's/^### Step 3: v3,/### Step 3: v4,/'
    [ "$status" -eq 1 ]
    [[ $output == *"has the numbers ['3', 'v4'], the English ['3', 'v3']"* ]]
    planted 's/^### Borders:/#### Borders:/'
    [ "$status" -eq 1 ]
    [[ $output == *"headings differ in number or level"*"Borders"* ]]
}

@test "handout_sync catches a changed number, a decimal comma and a missing code span" {
    planted 's/the extended image is 4996x3748 pixels/the extended image is 4996x3749 pixels/'
    [ "$status" -eq 1 ]
    [[ $output == *"number 4996x3748 missing (1 of 1)"* ]]
    [[ $output == *"number 4996x3749 not in the English (1 more)"* ]]
    planted 's/and the 0\.01 absorbs that/and the 0,01 absorbs that/'
    [ "$status" -eq 1 ]
    [[ $output == *"number 0.01 missing"* ]]
    planted 's/^You edit `conv.c` only/You edit conv.c only/'
    [ "$status" -eq 1 ]
    [[ $output == *"code span conv.c missing (1 of "* ]]
}

@test "handout_sync catches a changed figures block, a missing or misplaced link, a changed table" {
    # (a figure measured again changes the block: the plant changes whatever v1's time is)
    planted '/^<!-- figures begin -->$/,/^<!-- figures end -->$/s/^| v1 naive | \([0-9]\)/| v1 naive | 9\1/'
    [ "$status" -eq 1 ]
    [[ $output == *"the figures block differs from the English one"* ]]
    planted 's| · \[Glossary\](../../docs/glossary.md)||'
    [ "$status" -eq 1 ]
    [[ $output == *"no link to the glossary (../../docs/glossary.md)"* ]]
    planted '3d; $a\\n*[English version](README.md) · [Glossary](../../docs/glossary.md)*'
    [ "$status" -eq 1 ]
    [[ $output == *"not on the line under the title"* ]]
    en7="$KIT_ROOT/labs/07_zerocopy_soa/README.md"
    fake_translation "$en7" "$BATS_TEST_TMPDIR/README.xx.md.in"
    sed '0,/^| `sum.cu`/{/^| `sum.cu`/d}' "$BATS_TEST_TMPDIR/README.xx.md.in" >"$BATS_TEST_TMPDIR/README.xx.md"
    run python3 "$SYNC" check "$en7" "$BATS_TEST_TMPDIR/README.xx.md"
    [ "$status" -eq 1 ]
    [[ $output == *"table 1 has 6 rows of 2 cells, the English 7 rows of 2"* ]]
    run python3 "$SYNC" check "$en7" "$BATS_TEST_TMPDIR/no-such.md"
    [ "$status" -eq 1 ]
    [[ $output == *"no-such.md: missing"* ]]
    run python3 "$SYNC" check "$en7"
    [ "$status" -eq 2 ]
}

@test "the glossary: docs/glossary.md is the rendering of its sources, and every language's LANG.tsv covers terms.txt" {
    local g missing=""
    for g in $(langs); do
        [ -f "$KIT_ROOT/docs/glossary/$g.tsv" ] || missing="$missing docs/glossary/$g.tsv"
    done
    [ -z "$missing" ] || { echo "missing:$missing"; false; }
    run python3 "$GLOSS" render --check
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for g in $(langs); do grep -q "](../labs/01_cpu_conv/README.$g.md)" "$KIT_ROOT/docs/glossary.md"; done
}

# a kit of the glossary's sources alone, with fake el and ru tables
glossary_kit() {
    G="$BATS_TEST_TMPDIR/g"
    mkdir -p "$G/docs/glossary" "$G/labs/01_cpu_conv"
    cp "$KIT_ROOT/docs/glossary/terms.txt" "$G/docs/glossary/"
    touch "$G/labs/01_cpu_conv/Makefile"
    cp "$EN01" "$G/labs/01_cpu_conv/"
    fake_tsv "$G/docs/glossary/el.tsv"
    fake_tsv "$G/docs/glossary/ru.tsv"
}

@test "glossary.py render: a table of every language there is, an intro that links back to the labs; --check finds a change" {
    glossary_kit
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    page="$G/docs/glossary.md"
    grep -qx '| English | Ελληνικά | Русский |' "$page"
    grep -qxF '| thread block | τ-thread block | τ-thread block |' "$page"
    [ "$(grep -c '^| ' "$page")" -eq "$(($(grep -cv -e '^#' -e '^[[:space:]]*$' "$G/docs/glossary/terms.txt") + 1))" ]
    grep -qF '[Lab 01: 2D convolution in C, on one CPU core](../labs/01_cpu_conv/README.md) · [Ελληνικά](../labs/01_cpu_conv/README.el.md)' "$page"
    python3 "$GLOSS" render --root "$G" --check
    sed -i 's/| τ-warp |/| warp |/' "$page"
    run python3 "$GLOSS" render --root "$G" --check
    [ "$status" -eq 1 ]
    [[ $output == *"docs/glossary.md differs from its rendering"*"make glossary"* ]]
    rm "$page"
    run python3 "$GLOSS" render --root "$G" --check
    [ "$status" -eq 1 ]
    [[ $output == *"docs/glossary.md is missing"* ]]
    # the four languages in the kit's order, whichever exist
    fake_tsv "$G/docs/glossary/hu.tsv"
    fake_tsv "$G/docs/glossary/it.tsv"
    python3 "$GLOSS" render --root "$G"
    grep -qx '| English | Ελληνικά | Русский | Italiano | Magyar |' "$page"
}

@test "glossary.py: a term missing, extra, out of order or twice, a malformed line, a stray language: exit 1 naming it, nothing written" {
    glossary_kit
    t="$G/docs/glossary/el.tsv"
    cp "$t" "$t.good"
    sed -i '/^warp\t/d' "$t"
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 1 ]
    [[ $output == *"docs/glossary/el.tsv: the term 'warp' is missing"* ]]
    [ ! -e "$G/docs/glossary.md" ]
    cp "$t.good" "$t"; printf 'texture memory\tυφή\n' >>"$t"
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 1 ]
    [[ $output == *"el.tsv line $(wc -l <"$t"): 'texture memory' is not a term of docs/glossary/terms.txt"* ]]
    cp "$t.good" "$t"; sed -i '2{h;d};3G' "$t"   # lines 2 and 3 swapped: grid before thread
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 1 ]
    [[ $output == *"el.tsv line 2: 'thread block' is out of order: docs/glossary/terms.txt has 'thread' here"* ]]
    cp "$t.good" "$t"; sed -n 5p "$t.good" >>"$t"
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 1 ]
    [[ $output == *"'warp' a second time (line 5)"* ]]
    for bad in 's/^grid\t.*/grid/' 's/^grid\t.*/grid\tπλέγμα\textra/' 's/^grid\t.*/grid\t/' 's/^grid\t\(.*\)/grid\t\1\r/' \
        's/^grid\t/grid \t/' '4i\\'; do
        cp "$t.good" "$t"; sed -i "$bad" "$t"
        run python3 "$GLOSS" render --root "$G"
        [ "$status" -eq 1 ] || { echo "$bad: exit $status"; false; }
        [[ $output == *"el.tsv line 4: "* ]] || { echo "$bad: $output"; false; }
    done
    cp "$t.good" "$t"; printf '\xff\xfe' >>"$t"
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 1 ]
    [[ $output == *"el.tsv: not UTF-8 text"* ]]
    cp "$t.good" "$t"; cp "$t.good" "$G/docs/glossary/de.tsv"
    run python3 "$GLOSS" render --root "$G"
    [ "$status" -eq 1 ]
    [[ $output == *"docs/glossary/de.tsv: de is not one of the handouts' languages (el, ru, it, hu)"* ]]
    rm "$G/docs/glossary/de.tsv"
    python3 "$GLOSS" render --root "$G"
    [ -s "$G/docs/glossary.md" ]
    # bad use: one line, exit 2
    for args in "render --root $G --lang xx" "render --root $G --labs labs/nope" "frobnicate" \
        "render --root $BATS_TEST_TMPDIR/none" "render --root $G --check extra"; do
        run python3 "$GLOSS" $args
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; false; }
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
    done
}

# a copy of the kit, without git and build outputs, whose labs all have their
# handout in Greek (the kit's own where it has them, else fake ones in step)
# and a Greek glossary table
greek_kit() {
    K="$BATS_TEST_TMPDIR/kit"
    mkdir -p "$K/grading"
    tar -C "$KIT_ROOT" --exclude=build --exclude=out -cf - Makefile common labs solutions docs | tar -C "$K" -xf -
    cp "$KIT_ROOT/grading/check.c" "$K/grading/"
    local l
    for l in $(kit_labs "$K"); do
        [ -f "$K/labs/$l/README.el.md" ] || fake_translation "$K/labs/$l/README.md" "$K/labs/$l/README.el.md"
    done
    [ -f "$K/docs/glossary/el.tsv" ] || fake_tsv "$K/docs/glossary/el.tsv"
}

@test "make dist-student LANG=el: each lab's README.md is the Greek handout, the English beside it as README.en.md, and the glossary" {
    greek_kit
    run make -s -C "$K" dist-student LANG=el
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ $output == *"wrote out/cuda-lab-kit-student-el.tar.gz"* ]]
    d="$BATS_TEST_TMPDIR/el"
    mkdir -p "$d"
    tar -xzf "$K/out/cuda-lab-kit-student-el.tar.gz" -C "$d"
    s="$d/cuda-lab-kit-student"
    local l n=0
    for l in $(kit_labs "$K"); do
        cmp "$s/labs/$l/README.en.md" "$K/labs/$l/README.md"
        # the Greek handout, its link to the English one pointing at README.en.md
        cmp "$s/labs/$l/README.md" <(sed 's|](README\.md)|](README.en.md)|g' "$K/labs/$l/README.el.md")
        grep -qF '](README.en.md)' "$s/labs/$l/README.md"
        run grep -cF '](README.md)' "$s/labs/$l/README.md"
        [ "$output" = 0 ]
        n=$((n + 1))
    done
    [ "$n" -ge 7 ]
    run find "$s" -name 'README.??.md' ! -name README.en.md
    [ -z "$output" ] || { echo "other translations: $output"; false; }
    grep -qF '| English | Ελληνικά |' "$s/docs/glossary.md"
    grep -qF '(../labs/01_cpu_conv/README.en.md)' "$s/docs/glossary.md"
    grep -q 'is its handout, in Greek' "$s/README.md"
    # the student's tools know the Greek handout as the lab's: its figures block is checked
    make -s -C "$s/labs/01_cpu_conv" figures-check
    # a release of some labs in Greek
    run make -s -C "$K" dist-student LANG=el LABS=01,02
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    run tar -tzf "$K/out/cuda-lab-kit-student-01-02-el.tar.gz"
    [[ $output == *"labs/02_omp_sse/README.en.md"* ]]
    [[ $output != *"labs/03_global_mem"* ]]
}

@test "make dist-student: LANG from the environment is the locale, not a language; without LANG the translations ride along" {
    greek_kit
    run env LANG=el make -s -C "$K" dist-student
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ $output == *"wrote out/cuda-lab-kit-student.tar.gz"* ]]
    run tar -tzf "$K/out/cuda-lab-kit-student.tar.gz"
    [[ $output == *"cuda-lab-kit-student/labs/01_cpu_conv/README.el.md"* ]]
    [[ $output == *"cuda-lab-kit-student/docs/glossary.md"* ]]
    [[ $output != *"README.en.md"* ]]
    [ ! -e "$K/out/cuda-lab-kit-student-el.tar.gz" ]
    run make -s -C "$K" dist-student LANG=en
    [ "$status" -eq 0 ]
    [[ $output == *"wrote out/cuda-lab-kit-student.tar.gz"* ]]
}

@test "make dist-student: an unknown LANG is one line and exit 2; a Greek handout out of step is refused, nothing written" {
    greek_kit
    for bad in xx C.UTF-8 el_GR ''; do
        run make -s -C "$K" dist-student LANG="$bad"
        [ "$status" -ne 0 ]
        [ "$(grep -c '^dist-student: ' <<<"$output")" -eq 1 ] || { echo "LANG=$bad: $output"; false; }
        [[ $output == *"is not a language of the handouts (el, ru, it, hu"* ]]
        run "$K/common/scripts/dist-student.sh" --lang "$bad"
        [ "$status" -eq 2 ]
        [ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
    done
    ls "$K/out" >"$BATS_TEST_TMPDIR/before" 2>/dev/null || true
    sed -i '/^3\. /d' "$K/labs/01_cpu_conv/README.el.md"
    rm "$K/labs/02_omp_sse/README.el.md"
    run make -s -C "$K" dist-student LANG=el
    [ "$status" -ne 0 ]
    [[ $output == *"nothing written"* ]]
    [[ $output == *"labs/01_cpu_conv/README.el.md: "*"numbered questions"* ]]
    [[ $output == *"labs/02_omp_sse/README.el.md: missing"* ]]
    [ ! -e "$K/out/cuda-lab-kit-student-el.tar.gz" ]
}
