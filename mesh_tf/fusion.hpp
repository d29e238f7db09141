#pragma once
// XLA's loop fusion of elementwise ops, as it changes the time of a lowered program (config hardware.fusion):
//   xla   the default: an elementwise step whose output only one later step reads, an elementwise step or a
//         reduction, runs fused into it: the intermediate never goes to HBM, so the producer saves writing
//         it and the consumer saves reading it, and the per-op overhead is paid once per fusion (by its
//         last step). Chains fuse step by step.
//   none  every step reads its inputs from HBM and writes its output there.
// XLA fuses these on TPU (tensorflow/compiler/xla/service/instruction_fusion.cc: elementwise producers into
// elementwise and reduce consumers, "loop" and "input" fusion; the XLA overview calls fusion its single most
// important optimisation). This is its conservative core: XLA also duplicates a cheap producer into several
// consumers and fuses elementwise epilogues into matmuls ("output fusion"), which tpusim does not, and a
// fused intermediate still counts in the memory report.
#include "mesh_tf/device_model.hpp"
#include "mesh_tf/program.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class FusionPolicy { xla, none };
const NameTable<FusionPolicy>& fusion_policies();  // "xla", "none"

// Under FusionPolicy::xla, fuses the steps of `program` as above and retimes the fused ones on `device`
// (none of them runs on the matrix unit). `kept` lists values that must reach HBM whoever reads them (the
// program's outputs and the new values of variables).
void fuse_elementwise(Program& program, const DeviceModel& device, const std::vector<int>& kept,
                      FusionPolicy policy);

}  // namespace tpusim::mtf
