# Sourced by the pack/run scripts that carry a benchmark to a machine without the project's tools
# (bench/perf/remote, bench/gpu): what travels the same way for all of them.

# This Node binary, stripped and xz-compressed, as $1/node.xz (21.9 MB instead of 24.2 MB unstripped
# at -6: the pack, the working tree beside it, must fit a lent machine's 64 MiB transfer).
pack_node() {
  strip -o "$1/node" "$(command -v node)" && xz -T0 -9e -c "$1/node" >"$1/node.xz" && rm "$1/node"
}

# tritonserver from nvidia-pytriton ($2: its site-packages) with the libraries it links (ldd), without
# the Python backend and its libpython, as $1/tritonserver.tar.xz.
pack_tritonserver() {
  local pack=$1 site=$2 libs
  libs=$(ldd "$site/pytriton/tritonserver/bin/tritonserver" | awk '/nvidia_pytriton.libs/ {print "nvidia_pytriton.libs/" $1}')
  mkdir -p "$pack/empty/pytriton/tritonserver/backends"
  # shellcheck disable=SC2086 # one word per library
  XZ_OPT="-9e -T0" tar -cJf "$pack/tritonserver.tar.xz" -C "$site" pytriton/tritonserver/bin pytriton/tritonserver/caches $libs \
    -C "$PWD/$pack/empty" pytriton/tritonserver/backends
  rm -rf "$pack/empty"
}

# xz -dc, or Python's lzma where the machine has no xz.
unxz() { if command -v xz >/dev/null; then xz -dc "$1"; else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; fi; }
