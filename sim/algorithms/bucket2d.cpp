// The 2D bucket allreduce (Mesh-TensorFlow's TPU pods): bidirectional rings reduce-scatter along group
// dimension 0, allreduce along dimension 1 on 1/k0 of the data, and allgather back along dimension 0. It is
// the per-dimension composition bidir_ring,bidir_ring under its own name, for which the group shape "two
// dimensions" picks default group axes such as core+x,y.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/composition.hpp"

namespace tpusim::sim::algorithms {

Schedule bucket2d_allreduce(const topo::Group& group, const AlgorithmInput& input) {
  return compose_by_dimension(CollectiveKind::allreduce, group, {&bidir_ring_line, &bidir_ring_line},
                              input.request.elements);
}

// sim/README.md, Closed forms: 2(kx-1)a + (kx-1)/kx S/B + 2(ky-1)a + (ky-1)/ky (S/kx)/B, the composition's
// sum.
ClosedForm bucket2d_closed_form(const ClosedFormInput& input) {
  if (input.kind != CollectiveKind::allreduce || input.dims.size() != 2) return {};
  ClosedForm form = composed_closed_form(input, {bidir_ring_closed_form, bidir_ring_closed_form});
  if (form.time_s >= 0) form.formula = "2(kx-1)a + (kx-1)/kx S/B + 2(ky-1)a + (ky-1)/ky (S/kx)/B";
  return form;
}

}  // namespace tpusim::sim::algorithms
