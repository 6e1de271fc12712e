#!/usr/bin/env bash
# Sets acmesim up on Debian 12: installs the build dependencies with apt-get when any is missing,
# configures and builds. Every dependency is a Debian package (docs/design.md says why each).
#
#   ./setup.sh               install what is missing, build build/acmesim (Release)
#   ./setup.sh --test        ... then run the whole test suite with CTest (also installs chromium, pytest, matplotlib)
#   ./setup.sh --sanitize    build in build-asan/ with clang, AddressSanitizer + UBSan instead,
#                            the libFuzzer targets of tests/fuzz included (scripts/fuzz.sh runs them)
#   ./setup.sh --target T    build only target T (scripts/fuzz.sh: --sanitize --target fuzz)
#   ./setup.sh --no-install  skip the package check (offline machines that already have them)
#   ./setup.sh --packages-only  install what is missing and stop
set -euo pipefail
cd "$(dirname "$0")"

test=0
sanitize=0
install=1
packages_only=0
target=""
while [ $# -gt 0 ]; do
  arg="$1"
  shift
  case "$arg" in
    --target)
      [ $# -gt 0 ] || { echo "setup.sh: --target needs a target name, e.g. fuzz" >&2; exit 2; }
      target="$1"
      shift ;;
    --packages-only) packages_only=1 ;;
    --test) test=1 ;;
    --sanitize) sanitize=1 ;;
    --no-install) install=0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (see ./setup.sh --help)" >&2; exit 2 ;;
  esac
done

packages=(
  g++ cmake ninja-build          # compiler and build
  libboost-dev                   # boost::random distributions, small_vector
  libboost-iostreams-dev         # gzip-compressed traces
  libyaml-cpp-dev                # scenarios
  nlohmann-json3-dev             # summary.json
  libfmt-dev                     # formatting (g++ 12 has no <format>)
  catch2                         # tests (Catch2 v2 on Debian 12)
  zlib1g-dev                     # inflating gzip traces
  libssl-dev                     # SHA-256 of traces and resolved scenarios (provenance)
  libcli11-dev                   # the command line
  libspdlog-dev                  # logging: levels, one logger for every command
  libjemalloc-dev                # the executables' allocator, with transparent huge pages (docs/design.md)
  libbenchmark-dev               # micro-benchmarks (bench/)
  clang-format                   # formatting, checked in CI
  libboost-mpi-dev libopenmpi-dev openmpi-bin  # sweeps across the ranks of an MPI job (Boost.MPI, Open MPI)
  libjs-vega                     # the charts of `acmesim report`, inlined into its page (no network)
  pybind11-dev python3-dev       # the Python module (python/, `import acmesim`)
  python3-numpy python3-pandas   # ... its DataFrames
)
if [ "$test" = 1 ]; then
  packages+=(
    chromium                     # renders the report's pages headless in the tests
    python3-pytest               # the Python module's tests
    python3-matplotlib           # docs/notebook_example.py, run by those tests
  )
fi
if [ "$sanitize" = 1 ]; then
  packages+=(clang libclang-rt-14-dev)  # the sanitizer build: clang 14 with its sanitizers and libFuzzer
fi

if [ "$install" = 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]}"
    sudo_cmd=()
    [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

[ "$packages_only" = 1 ] && exit 0

jobs=$(nproc 2>/dev/null || echo 2)
if [ "$sanitize" = 1 ]; then
  build=build-asan
  # A build-asan/ of older checkouts was configured with g++: CMake cannot switch a configured
  # build's compiler in place, so it starts that one afresh.
  if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' "$build/CMakeCache.txt"; then
    echo "setup.sh: $build/ was configured with another compiler: configuring it again with clang++"
    rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
  fi
  # clang, so that the same build holds the tests under the sanitizers and the libFuzzer targets
  # (ACMESIM_FUZZ): CI compiles the libraries once for both. -O1 with line tables only (-g1): a
  # reasonable speed under AddressSanitizer (its documentation asks for -O1 or higher), reports
  # that still name file and line, and half the compile time of RelWithDebInfo's -O2 -g.
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DACMESIM_SANITIZE=ON -DACMESIM_FUZZ=ON >/dev/null
else
  build=build
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j "$jobs" ${target:+--target "$target"}

if [ "$test" = 1 ]; then
  ctest --test-dir "$build" -j "$jobs" --output-on-failure
fi
