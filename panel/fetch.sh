#!/bin/sh
# fetch.sh DIR: fetch the panel's descriptions (descriptions.tsv beside this
# script) into DIR/NAME.json or DIR/NAME.yaml. Each package is fetched once
# with `npm pack` (npm checks the tarball against the registry's integrity
# hash) and unpacked; each file is then checked against its pinned sha256.
# A file already in DIR with the right sha256 is not fetched again.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
mkdir -p "$dir/packages"
grep -v '^#' "$here/descriptions.tsv" | while IFS='	' read -r name pkg path sum; do
	[ -n "$name" ] || continue
	ext=${path##*.}
	out="$dir/$name.$ext"
	if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$sum" ]; then continue; fi
	unpacked="$dir/packages/$(echo "$pkg" | tr '/@' '__')"
	if [ ! -d "$unpacked" ]; then
		tmp=$(mktemp -d "$dir/packages/.fetch-XXXXXX")
		echo "panel: npm pack $pkg" >&2
		(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
		mkdir "$tmp/x" && tar -xzf "$tmp"/*.tgz -C "$tmp/x"
		mv "$tmp/x/package" "$unpacked" && rm -rf "$tmp"
	fi
	have=$(sha256sum "$unpacked/$path" | cut -d' ' -f1)
	if [ "$have" != "$sum" ]; then
		echo "panel: $pkg $path: sha256 $have, want $sum: the package is not the pinned one; fix descriptions.tsv or the registry's answer" >&2
		exit 1
	fi
	cp "$unpacked/$path" "$out"
done
