#!/usr/bin/env bats
# common/scripts/setup.sh as root on a machine whose package registry does not
# answer: one line says nothing can be installed and what is missing, apt-get
# is tried twice at most (not once a package), and only a missing needed
# package makes it fail. A copy of the script in a kit of its own (no .deps/),
# a fake id (root) and a fake apt-get on a PATH that holds nothing else.
load helpers

setup() {
    KIT="$BATS_TEST_TMPDIR/kit"
    FAKE="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$KIT/common/scripts" "$FAKE"
    cp "$KIT_ROOT/common/scripts/setup.sh" "$KIT/common/scripts/"
    ln -s "$(command -v dirname)" "$FAKE/dirname"
    printf '#!/bin/sh\necho 0\n' >"$FAKE/id"
    CALLS="$BATS_TEST_TMPDIR/apt-calls"
    offline_apt
    chmod +x "$FAKE/id"
}

# offline_apt: an apt-get that fails the way it does without a network (update
# fetches nothing yet exits 0, as apt does), and writes down each call
offline_apt() {
    cat >"$FAKE/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$CALLS"
case " \$* " in
    *" update "*) echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'"
                  echo "W: Some index files failed to download. They have been ignored, or old ones used instead."
                  exit 0 ;;
    *) echo "E: Unable to locate package \$(echo "\$*" | awk '{ print \$NF }')"; exit 100 ;;
esac
EOF
    chmod +x "$FAKE/apt-get"
}

# setup_run [ARGS]: the copy of setup.sh with only the fakes on PATH
setup_run() {
    run env PATH="$FAKE" "$BASH" "$KIT/common/scripts/setup.sh" "$@"
}

MSG='no package registry answers (no network?), so nothing can be installed'

@test "no registry, a needed package missing: one line naming it, apt-get tried twice, exit 1" {
    setup_run
    [ "$status" -eq 1 ]
    [ "$(printf '%s\n' "$output" | grep -c "$MSG")" -eq 1 ]
    printf '%s\n' "$output" | grep "$MSG" | grep -q 'missing.* bats.* (needed) .*gnuplot-nox bubblewrap similarity-tester (wanted)'
    [ "$(wc -l <"$CALLS")" -eq 2 ]
    [ "$(grep -c 'install' "$CALLS")" -eq 1 ]
    [ "$(grep -c 'update' "$CALLS")" -eq 1 ]
    # no unpacking into .deps/ either: the registry is just as far for apt-get download
    [ ! -e "$KIT/.deps" ]
    ! printf '%s\n' "$output" | grep -q 'failed'
}

@test "no registry, only wanted packages missing: the same line once, and setup goes on (exit 0)" {
    printf '#!/bin/sh\n' >"$FAKE/bats"
    chmod +x "$FAKE/bats"
    # the needed headers at hand (a machine without stb or cmocka installed has them unpacked)
    mkdir -p "$KIT/.deps/usr/include/stb"
    touch "$KIT/.deps/usr/include/stb/stb_image.h" "$KIT/.deps/usr/include/cmocka.h"
    setup_run
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep -c "$MSG")" -eq 1 ]
    printf '%s\n' "$output" | grep "$MSG" | grep -q 'missing gnuplot-nox bubblewrap similarity-tester (wanted)'
    run grep -c 'needed' <<<"$(printf '%s\n' "$output" | grep "$MSG")"
    [ "$output" = 0 ]
    [ "$(wc -l <"$CALLS")" -eq 2 ]
}

@test "a registry that answers but lacks a package: the install's failure, not the no-network line" {
    cat >"$FAKE/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$CALLS"
case " \$* " in *" update "*) exit 0 ;; *) exit 100 ;; esac
EOF
    chmod +x "$FAKE/apt-get"
    setup_run
    [ "$status" -eq 1 ]
    [[ $output != *"$MSG"* ]]
    printf '%s\n' "$output" | grep -q 'setup: apt-get install .*bats.* failed'
    [ "$(wc -l <"$CALLS")" -eq 3 ]
}
