#!/bin/sh
# check_no_mpi.sh LIB: LIB (libchunkarray.so) needs no MPI library (DT_NEEDED).
# check_no_mpi.sh --exports LIB: LIB (libchunkarray_mpi.so) exports only ca_mpi_* functions.
set -eu
if [ "$1" = "--exports" ]; then
  lib=$2
  bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^ca_mpi_' | grep -v '^CA_MPI_1$' || true)
  if [ -n "$bad" ]; then
    echo "$lib exports symbols other than ca_mpi_*:"; echo "$bad"; exit 1
  fi
  n=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^ca_mpi_' || true)
  [ "$n" -gt 0 ] || { echo "$lib exports no ca_mpi_ function"; exit 1; }
  echo "$lib exports $n ca_mpi_* functions and nothing else"
  exit 0
fi
lib=$1
needed=$(readelf -d "$lib" | awk '/NEEDED/ {print $NF}')
echo "$lib needs: $needed"
if echo "$needed" | grep -qi 'mpi'; then
  echo "$lib must not link an MPI library"; exit 1
fi
