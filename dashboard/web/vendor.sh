#!/usr/bin/env bash
# Vendors the dashboard's client-side files from the npm registry at the versions pinned in
# package-lock.json (`npm ci` checks each package against the lockfile's sha512 integrity),
# into dashboard/static/vendor, which go:embed serves. The package tarball is kept in
# dashboard/web/pack so a Go test can check the vendored file against the lockfile.
# Nothing runs Node at run time. Skips the work when the files are newer than the lockfile.
set -euo pipefail
cd "$(dirname "$0")"
version=$(node -p 'require("./package-lock.json").packages["node_modules/htmx.org"].version')
out=../static/vendor/htmx.min.js
tgz=pack/htmx.org-$version.tgz
if [ -f "$out" ] && [ -f "$tgz" ] && [ -d node_modules/axe-core ] && [ "$out" -nt package-lock.json ] && [ "$tgz" -nt package-lock.json ]; then
	exit 0
fi
echo "dashboard: vendoring htmx.org@$version from the npm registry" >&2
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
mkdir -p pack ../static/vendor
rm -f pack/*.tgz
npm pack "htmx.org@$version" --pack-destination pack --loglevel=error >/dev/null
cp node_modules/htmx.org/dist/htmx.min.js "$out"
touch "$out" "$tgz"
