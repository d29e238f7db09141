#!/usr/bin/env bash
# sim/engine/ is private to sim/: the files that face SimGrid are included by sim/engine/ itself and by its
# own tests (tests/sim/engine/) only; the rest of the project, and the rest of sim/, reach the engine through
# sim/simulator.hpp. SimGrid's headers are included in sim/engine/ only (tests may include them to check
# against SimGrid).
#   tests/sim/engine_private.sh REPO
set -euo pipefail
cd "$1"
status=0
engine_users=$(grep -rlE --include='*.cpp' --include='*.hpp' --include='*.h' '#include +"sim/engine/' \
                 topologies sim mesh_tf workloads tests | grep -vE '^(sim/engine|tests/sim/engine)/' || true)
if [ -n "$engine_users" ]; then
  echo "FAILED: these files include sim/engine/, which is private to sim/ (use sim/simulator.hpp):" >&2
  echo "$engine_users" >&2
  status=1
fi
simgrid_users=$(grep -rlE --include='*.cpp' --include='*.hpp' --include='*.h' '#include +[<"](simgrid|xbt)/' \
                  topologies sim mesh_tf workloads | grep -vE '^sim/engine/' || true)
if [ -n "$simgrid_users" ]; then
  echo "FAILED: these files include a SimGrid header, which only sim/engine/ may do:" >&2
  echo "$simgrid_users" >&2
  status=1
fi
exit $status
