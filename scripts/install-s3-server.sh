#!/usr/bin/env bash
# Installs versitygw (a real S3-compatible server over a local directory) into "$(go env GOPATH)/bin/versitygw".
# The media tests run the S3 storage against it on loopback; production points S3_ENDPOINT at any S3 store.
set -euo pipefail
VERSION=v1.8.0
MODULE=github.com/versity/versitygw
command -v go >/dev/null || { echo "Go is required to build versitygw for the S3 storage tests: install Go (or the golang package)." >&2; exit 1; }
BIN="$(go env GOPATH)/bin/versitygw"
# The binary reports no version of its own; the module version is in its build information.
installed_version() { go version -m "$BIN" 2>/dev/null | awk '$1 == "mod" && $2 == "'"$MODULE"'" { print $3 }' || true; }
if [ -x "$BIN" ] && [ "$(installed_version)" = "$VERSION" ]; then
  echo "versitygw ${VERSION} already at $BIN"; exit 0
fi
echo "Building versitygw ${VERSION} into $(dirname "$BIN") (a few minutes the first time)..."
# Newer releases may ask for a newer Go than the machine's: let the go command fetch the toolchain they name.
GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" go install -trimpath "${MODULE}/cmd/versitygw@${VERSION}"
[ "$(installed_version)" = "$VERSION" ] || { echo "the built $BIN does not report ${VERSION}" >&2; exit 1; }
echo "Installed versitygw ${VERSION} at $BIN"
