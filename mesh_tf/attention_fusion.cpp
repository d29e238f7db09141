// The steps of each fused attention kernel (attention_kernel.hpp) grouped and timed as its two kernels,
// forward and backward, before XLA's fusion looks at the rest (fusion.hpp).
#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "mesh_tf/fusion.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::mtf {
namespace {

// A kernel's pass: its kernel id and whether it is the backward one.
using Pass = std::pair<int, bool>;

class KernelFuser {
 public:
  KernelFuser(Program& program, const DeviceModel& device, const std::vector<int>& kept)
      : program_(program), device_(device), readers_(program.values.size()), must_store_(program.values.size()) {
    for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
      const Step& s = program.steps[i];
      for (const int v : s.inputs) {
        if (readers_[v].empty() || readers_[v].back() != i) readers_[v].push_back(i);
      }
      if (s.attention_kernel >= 0 && !s.is_comm) members_[{s.attention_kernel, s.kernel_backward}].push_back(i);
    }
    for (const int v : kept) must_store_[v] = true;
  }

  void run() {
    // Every pass's HBM inputs first: a forward pass must store what its backward pass reads, even a value
    // (a row statistic) that only the backward pass's recomputed copies read.
    for (const auto& [pass, members] : members_) inputs_[pass] = hbm_inputs(pass, members);
    for (const auto& [pass, members] : members_) retime(pass, members);
  }

 private:
  const Step& step(int i) const { return program_.steps[i]; }

  // Whether the backward pass of `kernel` computes v again rather than read it: a value its forward pass
  // computes that is not one of the softmax's row statistics (a reduction's result, which is stored).
  bool recomputed_by_backward(int v, int kernel) const {
    const int p = program_.values[v].producer_step;
    if (p < 0) return false;
    const Step& s = step(p);
    return s.attention_kernel == kernel && !s.kernel_backward && s.fusion != FusionRole::reduction;
  }

  // How many times the pass reads an input: k and v (key length, no query length) once per computed block
  // of a query block's loop; in the backward pass q and the context's gradient (query length, no key
  // length) once per computed block of a key block's loop too; everything else once.
  double reads_of(int v, const Pass& pass) const {
    const AttentionKernel& kernel = program_.attention_kernels[pass.first];
    const Shape& shape = program_.values[v].layout.shape();
    const bool queries = shape.contains(kernel.query_length().name);
    const bool keys = shape.contains(kernel.key_length().name);
    const double computed = static_cast<double>(kernel.computed_blocks());
    if (keys && !queries) return computed / static_cast<double>(kernel.key_blocks());
    if (queries && !keys && pass.second) return computed / static_cast<double>(kernel.query_blocks());
    return 1;
  }

  // What a pass reads from HBM (`first`), and the forward steps a backward pass computes again inside it.
  std::pair<std::set<int>, std::set<int>> hbm_inputs(const Pass& pass, const std::vector<int>& members) const {
    const int kernel_id = pass.first;  // plain variables: lambdas capture them, which C++17 allows only for
    const bool backward = pass.second;  // variables, not structured bindings (clang refuses those)
    const std::set<int> member_set(members.begin(), members.end());
    std::set<int> inputs, copies;
    std::vector<int> pending;
    for (const int m : members)
      for (const int v : step(m).inputs) pending.push_back(v);
    while (!pending.empty()) {
      const int v = pending.back();
      pending.pop_back();
      const int p = program_.values[v].producer_step;
      if (p >= 0 && member_set.count(p)) continue;
      if (backward && recomputed_by_backward(v, kernel_id)) {
        if (copies.insert(p).second)
          for (const int u : step(p).inputs) pending.push_back(u);
        continue;
      }
      inputs.insert(v);
    }
    return {inputs, copies};
  }

  void retime(const Pass& pass, const std::vector<int>& members) {
    const int kernel_id = pass.first;  // plain variables: lambdas capture them, which C++17 allows only for
    const bool backward = pass.second;  // variables, not structured bindings (clang refuses those)
    const AttentionKernel& kernel = program_.attention_kernels[kernel_id];
    const std::set<int> member_set(members.begin(), members.end());
    const auto& [inputs, copies] = inputs_.at(pass);
    const auto backward_inputs = inputs_.find({kernel_id, true});
    double bytes = 0, matrix_s = 0, vector_s = 0;
    for (const int v : inputs) bytes += static_cast<double>(program_.values[v].slice_bytes()) * reads_of(v, pass);
    const auto written = [&](int v) {
      if (must_store_[v]) return true;
      if (!backward && backward_inputs != inputs_.end() && backward_inputs->second.first.count(v)) return true;
      return std::any_of(readers_[v].begin(), readers_[v].end(), [&](int r) {
        if (member_set.count(r)) return false;
        const Step& reader = step(r);
        const bool recomputed = reader.attention_kernel == kernel_id && reader.kernel_backward && !backward &&
                                recomputed_by_backward(v, kernel_id);
        return !recomputed;
      });
    };
    for (const int m : members) {
      if (written(step(m).output)) bytes += static_cast<double>(program_.values[step(m).output].slice_bytes());
    }
    const auto add_compute = [&](int s) {
      (step(s).fusion == FusionRole::contraction ? matrix_s : vector_s) += step(s).compute_s;
    };
    for (const int m : members) add_compute(m);
    for (const int c : copies) add_compute(c);
    // Blocks above a causal diagonal are skipped: their share of the work is not done.
    const double fraction = kernel.computed_fraction();
    matrix_s *= fraction;
    vector_s *= fraction;
    for (const int m : members) {
      Step& s = program_.steps[m];
      s.flops *= fraction;
      s.executed_flops *= fraction;
      s.reread_bytes = 0;
    }
    time_fusion(program_, device_, members, members.back(), matrix_s, vector_s, bytes);
  }

  Program& program_;
  const DeviceModel& device_;
  std::vector<std::vector<int>> readers_;  // the distinct steps that read each value, in program order
  std::vector<bool> must_store_;
  std::map<Pass, std::vector<int>> members_;  // of each pass, ascending
  std::map<Pass, std::pair<std::set<int>, std::set<int>>> inputs_;  // of each pass: hbm_inputs()
};

}  // namespace

void fuse_attention_kernels(Program& program, const DeviceModel& device, const std::vector<int>& kept) {
  if (program.attention_kernels.empty()) return;
  KernelFuser(program, device, kept).run();
}

}  // namespace tpusim::mtf
