#include "mesh_tf/rematerialization.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/program.hpp"

namespace tpusim::mtf {

const NameTable<RematerializationPolicy>& rematerialization_policies() {
  static const NameTable<RematerializationPolicy> table("rematerialization policy",
                                                        {{"none", RematerializationPolicy::none},
                                                         {"xla", RematerializationPolicy::xla},
                                                         {"layers", RematerializationPolicy::layers}});
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

// Policy `layers`: in each checkpointed layer, the values computed on the core that only the layer's own
// forward ops and the backward pass read are dropped after the forward pass and computed again, all at once,
// just before the first backward op that reads one of them; what the layer hands on (its outputs, read by
// later forward ops), collectives' results and the values kept past the step stay held. The recomputation
// runs every kernel that computes a dropped value (a kernel's whole time, as for `xla`), and every kernel of
// the layer that computes what those read and nothing holds any more (a value only the layer's forward ops
// read is freed after them), and lengthens the fusion of that first backward reader.
Rematerialization rematerialize_layers(Program& program, const Graph& graph,
                                       const std::vector<BufferReads>& buffers,
                                       const LayerCheckpointPolicy& policy) {
  const std::set<int> kept(program.kept_values.begin(), program.kept_values.end());
  const auto op_of = [&](int step) -> const OpNode& { return graph.op(program.steps[step].op); };
  struct Layer {
    std::vector<int> dropped;
    std::set<int> kernels;
    int first_backward_read = -1;
  };
  std::map<int, Layer> layers;
  int offloaded = 0;
  for (int v = 0; v < static_cast<int>(program.values.size()); ++v) {
    const int producer = program.values[v].producer_step;
    if (producer < 0 || !buffers[v].buffered || kept.count(v) || program.steps[producer].is_comm) continue;
    const int checkpoint = op_of(producer).checkpoint;
    if (checkpoint < 0) continue;
    int first_backward = -1;
    bool only_layer_and_backward = true, read_after_step = false;
    for (const int reader : buffers[v].reads) {
      if (reader >= static_cast<int>(program.steps.size())) {
        read_after_step = true;
        break;
      }
      const OpNode& op = op_of(reader);
      if (op.phase == Phase::backward) {
        if (first_backward < 0) first_backward = reader;
      } else if (op.checkpoint != checkpoint) {
        only_layer_and_backward = false;
      }
    }
    if (read_after_step || first_backward < 0) continue;
    const LayerHold hold = layer_hold(program, graph, producer, policy);
    if (hold == LayerHold::host) {
      // Out of HBM from its last forward read to its first backward one, back in time for it; a value the
      // layer hands on (the next layer's input) as well.
      program.values[v].rematerialized_at = first_backward;
      ++offloaded;
      continue;
    }
    if (!only_layer_and_backward || hold == LayerHold::device) continue;
    Layer& layer = layers[checkpoint];
    layer.dropped.push_back(v);
    layer.kernels.insert(fusion_of(program, producer));
    if (layer.first_backward_read < 0 || first_backward < layer.first_backward_read)
      layer.first_backward_read = first_backward;
  }
  // A value of the layer that no backward op reads, which its forward readers freed: computed again too when
  // a recomputed kernel reads it.
  const auto freed = [&](int u, int checkpoint) {
    const int p = program.values[u].producer_step;
    if (p < 0 || program.steps[p].is_comm || kept.count(u) || op_of(p).checkpoint != checkpoint) return false;
    if (layer_hold(program, graph, p, policy) != LayerHold::none) return false;
    return std::none_of(buffers[u].reads.begin(), buffers[u].reads.end(), [&](int reader) {
      return reader >= static_cast<int>(program.steps.size()) || op_of(reader).phase != Phase::forward;
    });
  };
  for (auto& [checkpoint, layer] : layers) {
    std::vector<int> pending(layer.kernels.begin(), layer.kernels.end());
    while (!pending.empty()) {
      const int kernel = pending.back();
      pending.pop_back();
      for (int s = 0; s <= kernel; ++s) {
        if (fusion_of(program, s) != kernel) continue;
        for (const int u : values_read(program, s)) {
          const int p = program.values[u].producer_step;
          if (!freed(u, checkpoint) || fusion_of(program, p) == kernel) continue;
          if (layer.kernels.insert(fusion_of(program, p)).second) pending.push_back(fusion_of(program, p));
        }
      }
    }
  }
  Rematerialization result;
  for (auto& [checkpoint, layer] : layers) {
    double recompute_s = 0;
    for (const int kernel : layer.kernels) recompute_s += program.steps[kernel].time_s;
    for (const int v : layer.dropped) program.values[v].rematerialized_at = layer.first_backward_read;
    program.steps[fusion_of(program, layer.first_backward_read)].time_s += recompute_s;
    result.values += static_cast<int>(layer.dropped.size());
    result.recompute_s += recompute_s;
  }
  result.offloaded_values = offloaded;
  return result;
}

bool ends_with_any(const std::string& name, const std::vector<std::string>& suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
}

// jax.checkpoint_policies' dot_general without batch dimensions: a two-input contraction on the matrix unit
// whose inputs share no dimension that its result keeps.
bool dot_without_batch_dims(const Graph& graph, const OpNode& op, const Step& step) {
  if (op.kind != OpKind::einsum || op.inputs.size() != 2 || step.fusion != FusionRole::contraction) return false;
  const Shape& a = graph.tensor(op.inputs[0]).shape;
  const Shape& b = graph.tensor(op.inputs[1]).shape;
  const Shape& out = graph.tensor(op.output).shape;
  for (const auto& dim : a.dims())
    if (b.contains(dim.name) && out.contains(dim.name)) return false;
  return true;
}

}  // namespace

LayerHold layer_hold(const Program& program, const Graph& graph, int step, const LayerCheckpointPolicy& policy) {
  const Step& s = program.steps[step];
  if (s.is_comm) return LayerHold::none;
  const OpNode& op = graph.op(s.op);
  if (op.phase != Phase::forward || op.checkpoint < 0 || s.attention_kernel >= 0) return LayerHold::none;
  const bool dot = dot_without_batch_dims(graph, op, s);
  if (ends_with_any(op.name, policy.saved) || (dot && policy.save_dots)) return LayerHold::device;
  if (ends_with_any(op.name, policy.offloaded) || (dot && policy.offload_dots)) return LayerHold::host;
  return LayerHold::none;
}

Rematerialization rematerialize(Program& program, const Graph& graph, std::uint64_t memory_bytes,
                                RematerializationPolicy policy, const LayerCheckpointPolicy& layer_policy) {
  if (policy == RematerializationPolicy::none) return {};
  if (policy == RematerializationPolicy::layers) {
    return rematerialize_layers(program, graph, buffer_reads(program, program.kept_values), layer_policy);
  }
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
