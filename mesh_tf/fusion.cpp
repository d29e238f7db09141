#include "mesh_tf/fusion.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <set>

#include "topologies/support/check.hpp"

namespace tpusim::mtf {

const NameTable<FusionPolicy>& fusion_policies() {
  static const NameTable<FusionPolicy> table(
      "fusion policy",
      {{"xla", FusionPolicy::xla}, {"loop", FusionPolicy::loop}, {"none", FusionPolicy::none}});
  return table;
}

namespace {

bool fusible(const Step& step) {
  return !step.is_comm && step.fusion != FusionRole::none && step.attention_kernel < 0;
}

// The distinct steps that read each value, in program order.
std::vector<std::vector<int>> readers_of(const Program& program) {
  std::vector<std::vector<int>> readers(program.values.size());
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    for (const int v : program.steps[i].inputs) {
      if (readers[v].empty() || readers[v].back() != i) readers[v].push_back(i);
    }
  }
  return readers;
}

std::vector<bool> stored(const Program& program, const std::vector<int>& kept) {
  std::vector<bool> must_store(program.values.size(), false);
  for (const int v : kept) must_store[v] = true;
  return must_store;
}

// FusionPolicy::loop: each fused step keeps its own roofline on the bytes it still moves.
void fuse_loops(Program& program, const DeviceModel& device, const std::vector<int>& kept) {
  const auto readers = readers_of(program);
  const auto must_store = stored(program, kept);
  std::vector<double> saved_bytes(program.steps.size(), 0.0);
  std::vector<bool> fused_away(program.steps.size(), false);  // its output stays on chip
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    const Step& producer = program.steps[i];
    if (!fusible(producer) || producer.fusion != FusionRole::elementwise) continue;
    const int v = producer.output;
    if (must_store[v] || readers[v].size() != 1) continue;
    const int c = readers[v].front();
    const Step& consumer = program.steps[c];
    if (!fusible(consumer) ||
        (consumer.fusion != FusionRole::elementwise && consumer.fusion != FusionRole::reduction))
      continue;
    TPUSIM_CHECK(c > i);
    const double bytes = static_cast<double>(program.values[v].slice_bytes());
    const auto reads = std::count(consumer.inputs.begin(), consumer.inputs.end(), v);
    saved_bytes[i] += bytes;
    saved_bytes[c] += bytes * static_cast<double>(reads);
    fused_away[i] = true;
    program.steps[i].fused_into = c;
  }
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    if (saved_bytes[i] == 0 && !fused_away[i]) continue;
    Step& step = program.steps[i];
    step.hbm_bytes -= saved_bytes[i];
    TPUSIM_CHECK(step.hbm_bytes >= 0);
    OpTime time = device.op_time(step.flops, step.hbm_bytes, step.transcendentals, step.extra_vector_ops);
    if (fused_away[i]) {  // not the last step of its fusion: the fusion's overhead is its last step's
      time.time_s -= time.overhead_s;
      time.overhead_s = 0;
    }
    step.time_s = time.time_s;
    step.overhead_s = time.overhead_s;
    step.bound = time.bound;
  }
}

// FusionPolicy::xla: steps grouped into fusions (a union-find over step indices whose representative is the
// fusion's last step), then each fusion timed as one kernel.
class Fuser {
 public:
  Fuser(Program& program, const DeviceModel& device, const std::vector<int>& kept)
      : program_(program),
        device_(device),
        readers_(readers_of(program)),
        must_store_(stored(program, kept)),
        parent_(program.steps.size()),
        contractions_(program.steps.size(), 0),
        members_(program.steps.size()),
        duplicated_(program.steps.size(), false),
        seen_in_(program.steps.size(), 0) {
    std::iota(parent_.begin(), parent_.end(), 0);
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      contractions_[i] = program.steps[i].fusion == FusionRole::contraction ? 1 : 0;
      members_[i] = {static_cast<int>(i)};
    }
  }

  // Whether fusion `later` (its representative) depends on anything of fusion `earlier` (which ends first):
  // whether a member of `earlier` is among the steps `later`'s members read, directly or not. Asked for
  // every pair of reductions that read one tensor (a pipelined model's stage weights are read by every
  // iteration's reductions: 25749 pairs on a 62k-step GPT-3 program), so the search is pruned without
  // changing its answer (steps are in program order: nothing before `earlier`'s first member leads to it),
  // and ordered: the step earliest in the program is visited first, so that a dependency through a long
  // chain (iteration after iteration) is found by walking down the chain rather than everything beside it
  // (7x fewer steps visited there than depth first).
  bool depends_on(int later, int earlier) {
    const int first = members_[earlier].front();
    ++search_;
    std::priority_queue<int, std::vector<int>, std::greater<>> frontier(std::greater<>(), members_[later]);
    while (!frontier.empty()) {
      const int s = frontier.top();
      frontier.pop();
      for (const int v : step(s).inputs) {
        const int p = program_.values[v].producer_step;
        if (p < first || seen_in_[p] == search_) continue;
        if (find(p) == earlier) return true;
        seen_in_[p] = search_;
        frontier.push(p);
      }
    }
    return false;
  }

  void run() {
    fuse_producers();
    fuse_sibling_reductions();
    retime();
  }

 private:
  const Step& step(int i) const { return program_.steps[i]; }
  int find(int i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  // Joins two fusions; the later representative stays (a fusion's last step).
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (a > b) std::swap(a, b);
    parent_[a] = b;
    contractions_[b] += contractions_[a];
    std::vector<int> members;
    std::merge(members_[a].begin(), members_[a].end(), members_[b].begin(), members_[b].end(),
               std::back_inserter(members));
    members_[b] = std::move(members);
    members_[a].clear();
  }
  // A fusion XLA may compute again in each reader instead of writing its result: cheap (no transcendental
  // function, no random bits, over elements as many as its result's) and reading at most one tensor as large
  // as its result (the others broadcast, such as per-channel scales: XLA's "effectively unary"), so that
  // copies do not multiply what is read. XLA judges each instruction, and an expensive one on a smaller
  // shape (batch norm's rsqrt of the per-channel variance) does not stop the large cheap ones it feeds from
  // being duplicated; computed again here with them, it costs a negligible share of each copy.
  bool duplicable(int root) {
    const std::int64_t out = program_.values[step(root).output].layout.slice_elements();
    for (const int m : members_of(root)) {
      const Step& s = step(m);
      if (s.fusion != FusionRole::elementwise) return false;
      const bool large = program_.values[s.output].layout.slice_elements() >= out;
      if (large && (s.transcendentals > 0 || s.extra_vector_ops > 0)) return false;
    }
    int large = 0;
    for (const int v : external_inputs(root)) {
      if (program_.values[v].layout.slice_elements() >= out) ++large;
    }
    return large <= 1;
  }

  void fuse_producers() {
    for (int i = 0; i < static_cast<int>(program_.steps.size()); ++i) {
      const Step& producer = step(i);
      if (!fusible(producer) || producer.fusion == FusionRole::reduction) continue;
      const int v = producer.output;
      const auto& readers = readers_[v];
      if (must_store_[v] || readers.empty()) continue;
      if (!std::all_of(readers.begin(), readers.end(), [&](int r) { return fusible(step(r)); })) continue;
      if (readers.size() == 1) {
        const int c = readers.front();
        const FusionRole consumer = step(c).fusion;
        const bool input_fusion = producer.fusion == FusionRole::elementwise;
        const bool output_fusion =
            producer.fusion == FusionRole::contraction && consumer == FusionRole::elementwise;
        if (!input_fusion && !output_fusion) continue;
        if (contractions_[find(i)] + contractions_[find(c)] > 1) continue;
        join(i, c);
      } else if (duplicable(find(i))) {
        for (const int m : members_of(find(i))) duplicated_[m] = true;
      }
    }
  }

  void fuse_sibling_reductions() {
    // Reduction fusions by the tensors they read from HBM.
    std::vector<std::vector<int>> reductions_reading(program_.values.size());
    for (int i = 0; i < static_cast<int>(program_.steps.size()); ++i) {
      if (!fusible(step(i)) || step(i).fusion != FusionRole::reduction || find(i) != i) continue;
      for (const int v : external_inputs(i)) reductions_reading[v].push_back(i);
    }
    for (const auto& roots : reductions_reading) {
      for (std::size_t a = 0; a < roots.size(); ++a) {
        for (std::size_t b = a + 1; b < roots.size(); ++b) {
          const int first = find(roots[a]), second = find(roots[b]);
          if (first == second || contractions_[first] + contractions_[second] > 0) continue;
          const int earlier = std::min(first, second), later = std::max(first, second);
          if (!depends_on(later, earlier)) join(earlier, later);
        }
      }
    }
  }

  const std::vector<int>& members_of(int root) const { return members_[root]; }

  // The values a fusion reads from HBM: its members' inputs produced outside it, a duplicated producer's
  // inputs standing for its result. `duplicates` collects the duplicated producers it computes.
  std::set<int> external_inputs(int root, std::set<int>* duplicates = nullptr) {
    std::set<int> inputs, copies;
    std::vector<int> pending;
    for (const int m : members_of(root)) {
      for (const int v : step(m).inputs) pending.push_back(v);
    }
    while (!pending.empty()) {
      const int v = pending.back();
      pending.pop_back();
      const int p = program_.values[v].producer_step;
      if (p >= 0 && find(p) == root) continue;
      if (p >= 0 && duplicated_[p]) {
        // The copy computes the duplicated fusion's members from its inputs.
        for (const int m : members_of(find(p))) {
          if (!copies.insert(m).second) continue;
          for (const int u : step(m).inputs) pending.push_back(u);
        }
        continue;
      }
      inputs.insert(v);
    }
    if (duplicates) *duplicates = copies;
    return inputs;
  }

  void retime() {
    const int n = static_cast<int>(program_.steps.size());
    std::vector<bool> reads_copy(n, false);
    for (int i = 0; i < n; ++i) {
      for (const int v : step(i).inputs) {
        const int p = program_.values[v].producer_step;
        if (p >= 0 && duplicated_[p]) reads_copy[find(i)] = true;
      }
    }
    for (int root = 0; root < n; ++root) {
      if (!fusible(step(root)) || find(root) != root || duplicated_[root]) continue;
      const std::vector<int>& members = members_of(root);
      if (members.size() == 1 && !reads_copy[root]) continue;  // its own kernel, as lowered
      std::set<int> copies;
      const std::set<int> inputs = external_inputs(root, &copies);
      double bytes = 0, matrix_s = 0, vector_s = 0;
      for (const int v : inputs) bytes += static_cast<double>(program_.values[v].slice_bytes());
      const std::set<int> member_set(members.begin(), members.end());
      for (const int m : members) {
        const Step& s = step(m);
        const auto& readers = readers_[s.output];
        const bool written =
            must_store_[s.output] || readers.empty() ||
            std::any_of(readers.begin(), readers.end(), [&](int r) { return !member_set.count(r); });
        if (written) bytes += static_cast<double>(program_.values[s.output].slice_bytes());
        bytes += s.reread_bytes;
        (s.fusion == FusionRole::contraction ? matrix_s : vector_s) += s.compute_s;
      }
      for (const int c : copies) vector_s += step(c).compute_s;
      time_fusion(program_, device_, members, root, matrix_s, vector_s, bytes);
    }
    for (int i = 0; i < n; ++i) {
      if (!duplicated_[i]) continue;
      Step& s = program_.steps[i];
      s.time_s = 0;
      s.overhead_s = 0;
      s.hbm_bytes = 0;
      s.duplicated = true;
      const int root = find(i);
      s.fused_into = root != i ? root : find(readers_[s.output].front());
    }
  }

  Program& program_;
  const DeviceModel& device_;
  const std::vector<std::vector<int>> readers_;
  const std::vector<bool> must_store_;
  std::vector<int> parent_;
  std::vector<int> contractions_;
  std::vector<std::vector<int>> members_;  // of each fusion, by its representative, ascending
  std::vector<bool> duplicated_;
  std::vector<std::int64_t> seen_in_;  // of each step: the last search of depends_on that reached it
  std::int64_t search_ = 0;
};

}  // namespace

void time_fusion(Program& program, const DeviceModel& device, const std::vector<int>& members, int root,
                 double matrix_s, double vector_s, double bytes) {
  const bool on_matrix_unit = matrix_s > 0 && matrix_s >= vector_s;
  const ComputeBound unit = on_matrix_unit && device.times_matrix_unit()    ? ComputeBound::matrix_unit
                            : !on_matrix_unit && device.times_vector_unit() ? ComputeBound::vector_unit
                                                                            : ComputeBound::flop_rate;
  const OpTime time = device.roofline_time(std::max(matrix_s, vector_s), unit, bytes);
  for (const int m : members) {
    Step& s = program.steps[m];
    s.bound = time.bound;
    if (m == root) {
      s.time_s = time.time_s;
      s.overhead_s = time.overhead_s;
      s.hbm_bytes = bytes;
      continue;
    }
    s.time_s = 0;
    s.overhead_s = 0;
    s.hbm_bytes = 0;
    s.fused_into = root;
  }
}

void fuse_steps(Program& program, const DeviceModel& device, const std::vector<int>& kept,
                FusionPolicy policy) {
  fuse_attention_kernels(program, device, kept);
  switch (policy) {
    case FusionPolicy::none:
      return;
    case FusionPolicy::loop:
      return fuse_loops(program, device, kept);
    case FusionPolicy::xla:
      return Fuser(program, device, kept).run();
  }
}

}  // namespace tpusim::mtf
