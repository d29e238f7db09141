#include "mesh_tf/overlap_policy.hpp"

namespace tpusim::mtf {

const NameTable<OverlapPolicy>& overlap_policies() {
  static const NameTable<OverlapPolicy> table("overlap policy",
                                              {{"dependencies", OverlapPolicy::dependencies},
                                               {"none", OverlapPolicy::none},
                                               {"concurrent", OverlapPolicy::concurrent}});
  return table;
}

}  // namespace tpusim::mtf
