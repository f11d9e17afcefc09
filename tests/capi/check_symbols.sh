#!/bin/sh
# Usage: check_symbols.sh path/to/libchunkarray.so
# Fails if the library exports any symbol other than ca_* (the version node CA_1 is allowed),
# or if its SONAME is not libchunkarray.so.1.
set -u
lib="$1"
if [ ! -f "$lib" ]; then
  echo "no such library: $lib" >&2
  exit 1
fi
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 } NF == 2 { print $2 }' | sed 's/@.*//')
if [ -z "$syms" ]; then
  echo "nm -D --defined-only $lib printed no symbols" >&2
  exit 1
fi
bad=$(printf '%s\n' "$syms" | grep -v -e '^ca_' -e '^CA_1$' || true)
count=$(printf '%s\n' "$syms" | grep -c '^ca_')
echo "$count ca_* symbols exported"
status=0
if [ -n "$bad" ]; then
  echo "exported symbols that are not ca_*:" >&2
  printf '%s\n' "$bad" >&2
  status=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$soname" != "libchunkarray.so.1" ]; then
  echo "SONAME is '$soname', expected libchunkarray.so.1" >&2
  status=1
else
  echo "SONAME $soname"
fi
exit $status
