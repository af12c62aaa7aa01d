#!/usr/bin/env bash
# Install Open MPI and MPICH from Debian's packages, side by side (idempotent).
# Debian bookworm: openmpi-bin/libopenmpi-dev 4.1.4, mpich/libmpich-dev 4.0.2. Both co-exist via
# alternatives; scripts/mpi-check.sh calls mpicc.openmpi/mpirun.openmpi and
# mpicc.mpich/mpiexec.mpich explicitly, never the bare mpicc/mpirun.
set -euo pipefail
need=()
for tool in mpicc.openmpi mpirun.openmpi mpicc.mpich mpiexec.mpich; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if [ "${#need[@]}" -eq 0 ]; then
    echo "mpi-install: Open MPI and MPICH already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y openmpi-bin libopenmpi-dev mpich libmpich-dev
echo "mpi-install: installed $(mpirun.openmpi --version 2>&1 | head -1); MPICH $(mpichversion 2>/dev/null | sed -n 's/MPICH Version:[[:space:]]*//p')"
