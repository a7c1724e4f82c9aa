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
    mkdir -p build
    # apt's progress and debconf chatter go to a log, shown only if it fails.
    if ! { $sudo apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } \
         >build/apt.log 2>&1; then
        cat build/apt.log
        echo "setup: apt-get could not install ${missing[*]} (log above, also in build/apt.log)" >&2
        exit 1
    fi
fi

# Quiet when all goes well; the whole log when it does not.
mkdir -p build
log=build/setup.log
echo "setup: building into build/ (log: $log)"
# shellcheck disable=SC2086
if ! { cmake -S . -B build ${WARP_CMAKE_FLAGS:-} && cmake --build build -j"$(nproc)"; } >"$log" 2>&1; then
    cat "$log"
    echo "setup: the build failed (log above, also in $log)" >&2
    exit 1
fi
echo "setup: done; the programs are in build/bin"
