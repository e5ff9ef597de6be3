#!/usr/bin/env bash
# Installs weir's build and test dependencies from Debian packages (Debian 12 "bookworm").
# Idempotent: does nothing when everything is already installed.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-graph-dev nlohmann-json3-dev libcli11-dev catch2 zlib1g-dev libomp-dev
  python3-numpy libssl-dev
  # CBLAS for CPP tasklets DaCe writes after auto-optimize (-lblas: OpenBLAS through Debian's
  # alternatives), LAPACKE for its LAPACK environments
  libopenblas-dev liblapacke-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
