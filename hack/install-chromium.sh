#!/usr/bin/env bash
# Installs headless Chromium from Debian's packages for the dashboard's browser tests
# (issue 15: nothing downloads a browser). Does nothing when chromium is on PATH.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi
echo "install-chromium: installing Debian's chromium package" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
command -v chromium >/dev/null
