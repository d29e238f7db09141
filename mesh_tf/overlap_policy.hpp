#pragma once
// Whether a step's collectives overlap its local compute (config hardware.overlap):
//   dependencies  the default: a collective starts as soon as its input is ready and the one communication
//                 stream is free, beside the compute stream, which waits only for the results it needs
//   none          one stream: every collective waits for the compute before it and holds back the compute
//                 after it, so the step takes the sum of every op's and collective's time
//   concurrent    as dependencies, with a communication stream per mesh dimension: collectives along
//                 disjoint mesh dimensions run at the same time, simulated together on one clock, so that
//                 where they share links they contend (step_schedule.hpp)
// The sources at hand (the Mesh-TensorFlow paper and code) do not say how the TPU runtime of 2018 ordered
// collectives against compute or one another, so all three are offered: none bounds the step from above;
// dependencies is the most overlap one communication stream allows; concurrent is the most any allows.
#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class OverlapPolicy { dependencies, none, concurrent };
const NameTable<OverlapPolicy>& overlap_policies();  // "dependencies", "none", "concurrent"

}  // namespace tpusim::mtf
