#!/usr/bin/env bash
# gnuplot-bundle.sh - pack this machine's gnuplot, the libraries it loads and
# one font into .deps/gnuplot.tar.xz, with a wrapper .deps/usr/bin/gnuplot that
# unpacks it on first use (into a folder under /tmp) and runs it there. For a
# GPU machine that has no gnuplot and no package registry: carry .deps along.
#
#   common/scripts/gnuplot-bundle.sh        (setup.sh --local calls it)
#
# The C library and the dynamic loader stay the target machine's; everything
# else gnuplot loads is taken from here, so the target needs a C library at
# least as new as this one.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
deps="$root/.deps"
gp=$(command -v gnuplot) || { echo "gnuplot-bundle: no gnuplot here to pack (apt-get install gnuplot-nox)" >&2; exit 1; }
gp=$(readlink -f "$gp")
case $gp in "$deps"/*) echo "gnuplot-bundle: $gp is the bundle's own wrapper; put the system gnuplot first on PATH" >&2; exit 1 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
b="$work/gnuplot"
mkdir -p "$b/bin" "$b/lib" "$b/fonts"
cp "$gp" "$b/bin/gnuplot.bin"
# every library it loads except the C library's own parts and the loader
ldd "$gp" | awk '$3 ~ /^\// { print $3 }' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
    while read -r so; do cp -L "$so" "$b/lib/"; done
font=$(fc-match -f '%{file}' sans 2>/dev/null)
[ -f "$font" ] && cp "$font" "$b/fonts/"
mkdir -p "$deps/usr/bin"
tar -C "$work" -cJf "$deps/gnuplot.tar.xz" gnuplot || exit 1
cat >"$deps/usr/bin/gnuplot" <<'EOF'
#!/usr/bin/env bash
# gnuplot from the kit's bundle (common/scripts/gnuplot-bundle.sh): unpack once, then run
here=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
tarball="$here/gnuplot.tar.xz"
sum=$(cksum <"$tarball" | cut -d' ' -f1)
dir="${TMPDIR:-/tmp}/kit-gnuplot-$(id -u)-$sum"
# unpacked into a folder of this process's own, completed (fontconfig's file too: it wants
# absolute folders), then published by one rename: many programs may start at once on a
# fresh machine (make test runs its files in parallel); the first rename wins
if [ ! -x "$dir/gnuplot/bin/gnuplot.bin" ]; then
    part="$dir.part.$$"
    rm -rf "$part"
    if mkdir -p "$part" && tar -C "$part" -xJf "$tarball"; then
        cat >"$part/gnuplot/fonts.conf" <<EOT
<?xml version="1.0"?>
<fontconfig>
  <dir>$dir/gnuplot/fonts</dir>
  <cachedir>$dir/gnuplot/fontcache</cachedir>
  <alias><family>sans</family><prefer><family>DejaVu Sans</family></prefer></alias>
</fontconfig>
EOT
        mv -T "$part" "$dir" 2>/dev/null
    fi
    rm -rf "$part"
    [ -x "$dir/gnuplot/bin/gnuplot.bin" ] || { echo "gnuplot: cannot unpack $tarball" >&2; exit 127; }
fi
g="$dir/gnuplot"
if [ ! -f "$g/fonts.conf" ]; then    # a folder unpacked by an older wrapper
    printf '<?xml version="1.0"?>\n<fontconfig>\n  <dir>%s/fonts</dir>\n  <cachedir>%s/fontcache</cachedir>\n  <alias><family>sans</family><prefer><family>DejaVu Sans</family></prefer></alias>\n</fontconfig>\n' \
        "$g" "$g" >"$g/fonts.conf.$$" && mv "$g/fonts.conf.$$" "$g/fonts.conf"
fi
export LD_LIBRARY_PATH="$g/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FONTCONFIG_FILE="$g/fonts.conf" GNUPLOT_DRIVER_DIR="$g/lib"
exec "$g/bin/gnuplot.bin" "$@"
EOF
chmod +x "$deps/usr/bin/gnuplot"
echo "gnuplot-bundle: $(du -h "$deps/gnuplot.tar.xz" | cut -f1) in $deps/gnuplot.tar.xz; wrapper $deps/usr/bin/gnuplot"
