#!/usr/bin/env bats
# Each handout's questions have their answers in the instructor's answer key
# (solutions/NN_name/NOTES.md, which never goes to students), and each handout
# is for the student: no history of how the kit was made.
load helpers

# the labs, found (helpers.bash: a folder labs/NN_NAME with a Makefile)
labs() { kit_labs; }

# questions README: the numbers of the numbered items of its "## Questions" section
questions() {
    awk '/^## / { on = ($0 ~ /^## Questions/) ; next } on && /^[0-9]+\. / { sub(/\..*/, ""); print }' "$1"
}

# answers NOTES: the numbers of its "### QN" headings under "## Answers"
answers() {
    awk '/^## / { on = ($0 ~ /^## Answers/); next } on && /^### Q[0-9]+([: ]|$)/ { sub(/^### Q/, ""); sub(/[^0-9].*/, ""); print }' "$1"
}

@test "every handout asks its questions in one numbered list, 1 to N" {
    for l in $(labs); do
        f="$KIT_ROOT/labs/$l/README.md"
        [ "$(grep -c '^## Questions' "$f")" = 1 ] || { echo "$l: not one '## Questions' section"; return 1; }
        q=$(questions "$f" | tr '\n' ' ')
        [ -n "$q" ] || { echo "$l: no numbered question"; return 1; }
        want=$(seq 1 "$(questions "$f" | wc -l)" | tr '\n' ' ')
        [ "$q" = "$want" ] || { echo "$l: questions numbered '$q', not '$want'"; return 1; }
    done
}

@test "every question of a handout has exactly one answer in its lab's answer key, and no answer is extra" {
    for l in $(labs); do
        n="$KIT_ROOT/solutions/$l/NOTES.md"
        [ -f "$n" ] || { echo "$l: no solutions/$l/NOTES.md"; return 1; }
        q=$(questions "$KIT_ROOT/labs/$l/README.md" | tr '\n' ' ')
        a=$(answers "$n" | tr '\n' ' ')
        [ "$q" = "$a" ] || { echo "$l: questions '$q', answers '$a'"; return 1; }
    done
}

@test "every answer key says how the lab departs from the course guide and which mistakes the examples plant" {
    for l in $(labs); do
        n="$KIT_ROOT/solutions/$l/NOTES.md"
        grep -q '^## Departures from the course guide' "$n" || { echo "$l: no departures section"; return 1; }
        grep -q '^## Common mistakes' "$n" || { echo "$l: no common mistakes section"; return 1; }
    done
    # each planted example (grading/examples/labNN/NAME) is named in its lab's key
    for d in "$KIT_ROOT"/grading/examples/lab[0-9][0-9]/*/; do
        e=$(basename "$d") nn=$(basename "$(dirname "$d")")
        [ -d "$d" ] && [ "$e" != correct ] || continue
        n=$(echo "$KIT_ROOT"/solutions/"${nn#lab}"_*/NOTES.md)
        grep -qE "(\`|\*\*)$e(\`|\*\*)" "$n" || { echo "$n does not name the example $e"; return 1; }
    done
}

@test "no handout speaks of how the kit was made or lacks its figures" {
    run grep -nicE '\bsession|measured again|not measured yet|in a later session' "$KIT_ROOT"/labs/*/README.md
    [ "$status" -eq 1 ] || { echo "$output" | grep -v ':0$'; return 1; }
}

@test "an answer key quotes its lab's figures files and names the commit each was measured at" {
    # measuring a lab's figures again changes the numbers its key quotes: the key is read
    # against the new file (and names its commit) before the file lands
    local l n t c named
    for l in $(labs); do
        n="$KIT_ROOT/solutions/$l/NOTES.md" named=0
        for t in "$KIT_ROOT/labs/$l"/figures/*.tsv; do
            [ -f "$t" ] || continue
            grep -qF "$(basename "$t")" "$n" || continue
            c=$(sed -n 's/^# commit: \([0-9a-f]\{7\}\).*/\1/p' "$t" | head -n 1)
            [ -n "$c" ] || { echo "$t: no '# commit:' line"; return 1; }
            tr '\n' ' ' <"$n" | tr -s ' ' | grep -q "commit $c" ||
                { echo "$n quotes $(basename "$t") but not its commit $c"; return 1; }
            named=$((named + 1))
        done
        # a lab with figures has a key that quotes one of them at least
        if [ "$named" -eq 0 ]; then
            for t in "$KIT_ROOT/labs/$l"/figures/*.tsv; do
                [ -f "$t" ] || continue
                echo "$n quotes none of $l's figures files"; return 1
            done
        fi
    done
}
