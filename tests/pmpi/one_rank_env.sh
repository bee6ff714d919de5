#!/bin/sh
# Started by the MPI launcher in place of the program: gives one rank of MPI_COMM_WORLD one more
# environment variable (or another value of one), then runs the program.
#   mpiexec -n NP sh one_rank_env.sh RANK NAME=VALUE PROGRAM [ARGS...]
# The rank comes from Open MPI's OMPI_COMM_WORLD_RANK or MPICH's PMI_RANK.
set -u
rank=$1
setting=$2
shift 2
me=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}
if [ -z "$me" ]; then
  echo "one_rank_env.sh: the launcher gave no rank (OMPI_COMM_WORLD_RANK, PMI_RANK)" >&2
  exit 1
fi
if [ "$me" = "$rank" ]; then
  export "${setting?}"
fi
exec "$@"
