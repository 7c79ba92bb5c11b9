#!/usr/bin/env bash
# Build the trec_eval C binary (OPTIONAL: tieaware never needs it, and never
# downloads anything when it runs).  Tests and benchmarks use the binary when
# they find it (env TIEAWARE_TREC_EVAL, else `trec_eval` on PATH) and fall
# back on pytrec_eval otherwise; see tieaware/testing/trec_eval_binary.py and
# docs/eval.md ("The trec_eval binary").
#
# usage: scripts/build_trec_eval.sh [--source SRC] [--ref REF] [--prefix DIR]
#
#   --source SRC  where trec_eval's C source comes from (default: $TREC_EVAL_SOURCE,
#                 else a shallow git clone of usnistgov/trec_eval at REF):
#                   a directory holding trec_eval.h (an unpacked release or checkout),
#                   a release tarball (.tar.gz / .tgz / .zip), or
#                   a git repository, bare or not (REF is checked out of it).
#   --ref REF     the git tag or commit to build from a repository (default v9.0.8,
#                 the version pytrec_eval-terrier compiles; ignored for directories
#                 and tarballs).
#   --prefix DIR  where the binary goes (default: ${XDG_CACHE_HOME:-~/.cache}/tieaware/bin).
#
# Why not PyPI or Debian: Debian has no trec_eval package (`apt-cache policy
# trec-eval` finds none), and the PyPI sdists of pytrec_eval and
# pytrec_eval-terrier do not carry trec_eval's C source: their setup.py
# downloads it from GitHub while building, so `pip download --no-binary :all:`
# yields an 18 kB archive without it.  The source therefore comes from
# trec_eval's own repository, or from a copy you give with --source.
#
# The build runs in a temporary directory, then trec_eval's own quick test
# (`make quicktest`: its sample qrels/run against its recorded output) must
# pass before the binary is installed.  Nothing is written inside this
# repository: no trec_eval source or binary belongs in it.
set -euo pipefail

source_arg="${TREC_EVAL_SOURCE:-}"
ref="v9.0.8"
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/tieaware/bin"
upstream="https://github.com/usnistgov/trec_eval.git"

die() { echo "build_trec_eval.sh: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --source) [ $# -ge 2 ] || die "--source needs a value"; source_arg="$2"; shift 2 ;;
        --ref) [ $# -ge 2 ] || die "--ref needs a value"; ref="$2"; shift 2 ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

for tool in make tar; do
    command -v "$tool" >/dev/null || die "'$tool' is needed"
done
command -v gcc >/dev/null || command -v cc >/dev/null || die "a C compiler (gcc or cc) is needed"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
src="$work/src"
mkdir -p "$src"

unpack_archive() {  # $1: archive; leaves the tree whose top holds trec_eval.h in $src
    case "$1" in
        *.zip) command -v unzip >/dev/null || die "'unzip' is needed for $1"; unzip -q "$1" -d "$work/unpacked" ;;
        *) mkdir -p "$work/unpacked"; tar -xf "$1" -C "$work/unpacked" ;;
    esac
    local header
    header="$(find "$work/unpacked" -maxdepth 3 -name trec_eval.h -print -quit)"
    [ -n "$header" ] || die "$1 holds no trec_eval.h: not a trec_eval source archive"
    cp -R "$(dirname "$header")/." "$src/"
}

from_git() {  # $1: repository (path or URL)
    command -v git >/dev/null || die "'git' is needed to read $1"
    if [ -d "$1" ] && git --git-dir="$1" rev-parse --git-dir >/dev/null 2>&1; then
        git --git-dir="$1" archive --format=tar "$ref" | tar -xf - -C "$src"       # a bare repository
    elif [ -d "$1/.git" ]; then
        git -C "$1" archive --format=tar "$ref" | tar -xf - -C "$src"             # a checkout
    else
        git clone --quiet --depth 1 --branch "$ref" "$1" "$work/clone" \
            || die "cannot clone $1 at $ref; give a local copy with --source"
        cp -R "$work/clone/." "$src/"
    fi
}

if [ -z "$source_arg" ]; then
    echo "build_trec_eval.sh: cloning $upstream at $ref" >&2
    from_git "$upstream"
elif [ -f "$source_arg" ]; then
    unpack_archive "$source_arg"
elif [ -f "$source_arg/trec_eval.h" ] && [ ! -d "$source_arg/.git" ]; then
    cp -R "$source_arg/." "$src/"
elif [ -d "$source_arg" ]; then
    from_git "$source_arg"
else
    die "--source $source_arg: no such file or directory"
fi
[ -f "$src/trec_eval.h" ] || die "no trec_eval.h in the source: not trec_eval's C source"

cc_name="$(command -v gcc >/dev/null && echo gcc || echo cc)"
echo "build_trec_eval.sh: building with $cc_name in $src" >&2
make -s -C "$src" CC="$cc_name" trec_eval >&2
make -s -C "$src" CC="$cc_name" quicktest >&2 || die "trec_eval's quicktest failed: the binary is not installed"

mkdir -p "$prefix"
install -m 0755 "$src/trec_eval" "$prefix/trec_eval"
echo "build_trec_eval.sh: installed $prefix/trec_eval ($("$prefix/trec_eval" -v 2>&1 | head -n 1))" >&2
echo "Use it from tieaware's tests and benchmarks with:" >&2
echo "export TIEAWARE_TREC_EVAL=$prefix/trec_eval"
