#!/bin/sh
# Usage: check_abi.sh ABIDIFF BASELINE.abi libchunkarray.so INCLUDE_DIR
# The ABI check of ./dev test's release stage: abidiff of the built library against the committed
# baseline (abi/libchunkarray.so.1.abi, written by abidw; see docs/abi.md). abidiff's exit status is
# a bit field: 1 error, 2 usage error, 4 ABI change, 8 incompatible ABI change (a removed function,
# a changed signature or struct layout). Errors and incompatible changes fail; compatible changes
# (functions added) pass with a note to refresh the baseline deliberately: ./dev abi-update.
set -u
abidiff=$1 baseline=$2 lib=$3 incdir=$4
if [ ! -f "$baseline" ]; then
  echo "no ABI baseline at $baseline: run ./dev abi-update" >&2
  exit 1
fi
out=$("$abidiff" --no-added-syms --headers-dir2 "$incdir" "$baseline" "$lib" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $((rc & 3)) -ne 0 ]; then
  echo "abidiff failed (exit $rc)" >&2
  exit 1
fi
if [ $((rc & 8)) -ne 0 ]; then
  echo "INCOMPATIBLE ABI change against $baseline (exit $rc): a function was removed or a signature or" >&2
  echo "struct changed. ABI 1 does not allow that: keep the old function (deprecated alias), append" >&2
  echo "struct fields only, or, for experimental API (chunkarray/experimental.h), update the baseline" >&2
  echo "deliberately with ./dev abi-update and say so in the commit (docs/abi.md)." >&2
  exit 1
fi
if [ $((rc & 4)) -ne 0 ]; then
  echo "compatible ABI change against $baseline (exit $rc): refresh the baseline with ./dev abi-update"
fi
echo "ABI compatible with $(basename "$baseline")"
exit 0
