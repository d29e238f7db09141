#include "mesh_tf/rematerialization.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "mesh_tf/program.hpp"

namespace tpusim::mtf {

const NameTable<RematerializationPolicy>& rematerialization_policies() {
  static const NameTable<RematerializationPolicy> table(
      "rematerialization policy",
      {{"none", RematerializationPolicy::none}, {"xla", RematerializationPolicy::xla}});
  return table;
}

namespace {

// What computing a value again takes: the steps of its kernel it depends on, the values they read from HBM,
// and the kernel's time (all of it: an upper bound on the part needed).
struct Recipe {
  bool possible = true;
  std::set<int> inputs;
  double time_s = 0;
};

Recipe recipe_of(const Program& program, int value) {
  Recipe recipe;
  const int producer = program.values[value].producer_step;
  const int kernel = fusion_of(program, producer);
  std::vector<int> pending{producer};
  std::set<int> seen;
  while (!pending.empty()) {
    const int s = pending.back();
    pending.pop_back();
    if (!seen.insert(s).second) continue;
    const Step& step = program.steps[s];
    if (step.is_comm || step.extra_vector_ops > 0) {
      recipe.possible = false;
      return recipe;
    }
    for (const int u : values_read(program, s)) {
      const int q = program.values[u].producer_step;
      if (q >= 0 && !program.steps[q].is_comm && fusion_of(program, q) == kernel) {
        pending.push_back(q);
      } else {
        recipe.inputs.insert(u);
      }
    }
  }
  recipe.time_s = program.steps[kernel].time_s;
  return recipe;
}

}  // namespace

Rematerialization rematerialize(Program& program, std::uint64_t memory_bytes,
                                RematerializationPolicy policy) {
  if (policy == RematerializationPolicy::none) return {};
  const std::vector<BufferReads> buffers = buffer_reads(program, program.kept_values);
  LiveMemory memory = live_memory(program, buffers);
  if (memory.peak_bytes <= memory_bytes) return {};
  const int n = static_cast<int>(program.steps.size());
  const std::set<int> kept(program.kept_values.begin(), program.kept_values.end());
  std::map<int, Recipe> recipes;
  std::set<int> pinned;  // inputs of a chosen recomputation: they must stay as they are
  std::vector<int> chosen;
  std::vector<std::pair<int, double>> added_s;  // kernel, recomputation time
  // A value live without a gap over `step`: a source, or held from its definition to a read at or after it.
  const auto held_at = [&](int v, int step) {
    const Value& value = program.values[v];
    if (value.producer_step < 0) return true;
    return buffers[v].buffered && value.rematerialized_at < 0 && value.producer_step <= step &&
           !buffers[v].reads.empty() && buffers[v].reads.back() >= step;
  };
  while (memory.peak_bytes > memory_bytes) {
    const int peak = memory.peak_step;
    int best = -1, best_at = -1;
    double best_score = -1;
    for (int v = 0; v < static_cast<int>(program.values.size()); ++v) {
      const Value& value = program.values[v];
      if (value.producer_step < 0 || value.producer_step >= peak || !buffers[v].buffered) continue;
      if (value.rematerialized_at >= 0 || kept.count(v) || pinned.count(v)) continue;
      const std::vector<int>& reads = buffers[v].reads;
      if (std::binary_search(reads.begin(), reads.end(), peak)) continue;  // needed at the peak itself
      const auto after = std::upper_bound(reads.begin(), reads.end(), peak);
      if (after == reads.end() || *after >= n) continue;
      const int at = *after;
      auto found = recipes.find(v);
      if (found == recipes.end()) found = recipes.emplace(v, recipe_of(program, v)).first;
      const Recipe& recipe = found->second;
      if (!recipe.possible) continue;
      if (!std::all_of(recipe.inputs.begin(), recipe.inputs.end(), [&](int u) { return held_at(u, at); }))
        continue;
      // XLA's choice: the most memory freed for the least recomputation.
      const double score = static_cast<double>(value.slice_bytes()) / std::max(recipe.time_s, 1e-12);
      if (score > best_score) {
        best_score = score;
        best = v;
        best_at = at;
      }
    }
    if (best < 0) break;
    program.values[best].rematerialized_at = best_at;
    chosen.push_back(best);
    const Recipe& recipe = recipes.at(best);
    pinned.insert(recipe.inputs.begin(), recipe.inputs.end());
    added_s.emplace_back(fusion_of(program, best_at), recipe.time_s);
    memory = live_memory(program, buffers);
  }
  if (memory.peak_bytes > memory_bytes) {
    // It cannot fit: XLA would not compile it. Held as assigned, the run reports what it needs.
    for (const int v : chosen) program.values[v].rematerialized_at = -1;
    return {};
  }
  Rematerialization result;
  result.values = static_cast<int>(chosen.size());
  for (const auto& [kernel, seconds] : added_s) {
    program.steps[kernel].time_s += seconds;
    result.recompute_s += seconds;
  }
  return result;
}

}  // namespace tpusim::mtf
