#!/usr/bin/env bash
# Installs FerretDB 1.24 (the local MongoDB-compatible engine) into "$(go env GOPATH)/bin/ferretdb".
# A plain `go install ...@v1.24.2` is not enough here: the module proxy refuses the deprecation lookup
# `go install` makes, and a module-cache build lacks build/version/version.txt, which FerretDB's
# version package requires. So the module is downloaded, its version file written, and built.
set -euo pipefail
VERSION=v1.24.2
MODULE=github.com/FerretDB/FerretDB
command -v go >/dev/null || { echo "Go 1.22+ is required to build the local FerretDB engine: install Go (or the golang package), or set MONGODB_URI to a MongoDB server." >&2; exit 1; }
BIN_DIR="$(go env GOPATH)/bin"
mkdir -p "$BIN_DIR"
# Version output is captured before matching: with pipefail, `ferretdb --version | grep -q` (or `| head`)
# fails whenever the reader exits first and the writer gets SIGPIPE.
installed_version() { "$BIN_DIR/ferretdb" --version 2>/dev/null || true; }
if [ -x "$BIN_DIR/ferretdb" ] && [[ "$(installed_version)" == *"${VERSION}"* ]]; then
  echo "FerretDB ${VERSION} already at $BIN_DIR/ferretdb"; exit 0
fi
echo "Building FerretDB ${VERSION} into $BIN_DIR (a minute or two the first time)..."
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
src=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "${MODULE}@${VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "could not download ${MODULE}@${VERSION} from the Go module proxy" >&2; exit 1; }
cp -r "$src" "$work/ferretdb"
chmod -R u+w "$work/ferretdb"
echo "${VERSION}" > "$work/ferretdb/build/version/version.txt"
(cd "$work/ferretdb" && go build -trimpath -o "$BIN_DIR/ferretdb" ./cmd/ferretdb)
[[ "$(installed_version)" == *"${VERSION}"* ]] || { echo "the built $BIN_DIR/ferretdb does not report ${VERSION}" >&2; exit 1; }
echo "Installed FerretDB ${VERSION} at $BIN_DIR/ferretdb"
