#!/usr/bin/env bash
# Installs whatever Debian 12 packages are missing, then configures and builds the
# toolchain into build/ (programs in build/bin). Extra CMake flags: WARP_CMAKE_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make gcc pkg-config python3 binutils
          llvm-19-dev llvm-19-tools libelf-dev libreadline-dev libcmocka-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# shellcheck disable=SC2086
cmake -S . -B build ${WARP_CMAKE_FLAGS:-} >/dev/null
cmake --build build -j"$(nproc)"
