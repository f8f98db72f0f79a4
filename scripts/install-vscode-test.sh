#!/usr/bin/env bash
# Installs what the real-VS-Code extension tests need, idempotently (see test/vscode/README.md):
#   - Debian Chromium (driven headless by playwright-core; Playwright's own download is blocked)
#   - libkrb5-dev (a native module of code-server builds against it)
#   - code-server 4.100.3 (VS Code 1.100.3, the newest whose engines accept Node 20) into
#     .tools/code-server, installed offline-capable: its ripgrep postinstall would download from
#     GitHub, so the rg binary from npm @vscode/ripgrep-linux-x64 is put into the cache it reads.
# Every failure stops the script and says what failed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

CODE_SERVER_VERSION=4.100.3
RIPGREP_NPM=@vscode/ripgrep-linux-x64@1.18.0
# What code-server 4.100.3's @vscode/ripgrep (1.15.11) looks for in its download cache.
RIPGREP_CACHE_DIR_NAME=vscode-ripgrep-cache-1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
PREFIX=$ROOT/.tools/code-server
ENTRY=$PREFIX/node_modules/code-server/out/node/entry.js

say() { printf '\033[1m[vscode-test]\033[0m %s\n' "$*"; }
fail() { printf '\033[31m[vscode-test] error:\033[0m %s\n' "$*" >&2; exit 1; }

# --- Debian packages ------------------------------------------------------------------------------
missing=()
for pkg in chromium libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]} (Chromium is ~290 MB)"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || fail "need root or sudo to apt-get install ${missing[*]}"
    SUDO=sudo
  fi
  $SUDO apt-get update -qq || fail "apt-get update failed (is the Debian mirror reachable?)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null || fail "apt-get install ${missing[*]} failed"
else
  say "chromium and libkrb5-dev present"
fi
[[ -x /usr/bin/chromium ]] || fail "/usr/bin/chromium is missing after install"

# --- code-server -----------------------------------------------------------------------------------
installed_version() {
  node -p "require('$PREFIX/node_modules/code-server/package.json').version" 2>/dev/null || true
}
if [[ -f "$ENTRY" && "$(installed_version)" == "$CODE_SERVER_VERSION" ]]; then
  say "code-server $CODE_SERVER_VERSION present in .tools/code-server"
  exit 0
fi

command -v npm >/dev/null || fail "npm is required"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

say "fetching ripgrep from npm ($RIPGREP_NPM) for code-server's offline postinstall"
(cd "$WORK" && npm pack --silent "$RIPGREP_NPM" >/dev/null) || fail "npm pack $RIPGREP_NPM failed (is the npm registry reachable?)"
mkdir -p "$WORK/rg"
tar -xzf "$WORK"/vscode-ripgrep-linux-x64-*.tgz -C "$WORK/rg" || fail "could not unpack $RIPGREP_NPM"
RG_BIN=$(find "$WORK/rg" -type f -name rg | head -n1)
[[ -n "$RG_BIN" ]] || fail "no rg binary inside $RIPGREP_NPM"
chmod +x "$RG_BIN"
"$RG_BIN" --version >/dev/null || fail "the rg binary from $RIPGREP_NPM does not run here"

# The postinstall resolves its cache under os.tmpdir(); a private TMPDIR keeps this install from
# colliding with (or being fooled by) another one running at the same time.
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR/$RIPGREP_CACHE_DIR_NAME"
tar -czf "$TMPDIR/$RIPGREP_CACHE_DIR_NAME/$RIPGREP_ASSET" -C "$(dirname "$RG_BIN")" rg

say "installing code-server@$CODE_SERVER_VERSION into .tools/code-server (~300 MB, a few minutes)"
rm -rf "$PREFIX"
mkdir -p "$PREFIX"
printf '{ "name": "triton-studio-vscode-test-tools", "private": true }\n' >"$PREFIX/package.json"
# code-server refuses to install without unsafe-perm when run as root; node-gyp comes through npx.
if ! npm_config_unsafe_perm=true npm_config_yes=true npm install --prefix "$PREFIX" \
  --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"; then
  rm -rf "$PREFIX"
  fail "npm install code-server@$CODE_SERVER_VERSION failed (see the npm log above)"
fi
if [[ ! -f "$ENTRY" ]]; then
  rm -rf "$PREFIX"
  fail "code-server installed but $ENTRY is missing"
fi
RG_INSTALLED=$(find "$PREFIX/node_modules" -path '*ripgrep/bin/rg' -type f | head -n1)
[[ -n "$RG_INSTALLED" ]] || { rm -rf "$PREFIX"; fail "code-server's ripgrep postinstall did not place bin/rg"; }
say "code-server $(installed_version) installed: $ENTRY"
