#include "workloads/search/search_space.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mapping_spec.hpp"
#include "mesh_tf/mesh_shape.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::workloads {

namespace {

// Every ordered tuple of sizes >= 2 with this product, of `rank` entries.
void factorisations(int product, int rank, std::vector<int>& prefix, std::vector<std::vector<int>>& out) {
  if (rank == 1) {
    if (product >= 2) {
      prefix.push_back(product);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int size = 2; size <= product / 2; ++size) {
    if (product % size != 0) continue;
    prefix.push_back(size);
    factorisations(product / size, rank - 1, prefix, out);
    prefix.pop_back();
  }
}

std::vector<std::pair<std::string, std::string>> sorted_rules(const std::string& layout) {
  auto rules = mtf::LayoutRules::parse(layout).rules();
  std::sort(rules.begin(), rules.end());
  return rules;
}

// Every assignment of the pod's physical axes (those longer than 1) to the mesh positions whose sizes their
// products make, each position's axes in every order (the first varies fastest).
std::vector<PositionalAxes> axis_assignments(const std::vector<int>& sizes,
                                             const std::vector<topo::PhysicalAxis>& axes) {
  const int k = static_cast<int>(sizes.size());
  const int n = static_cast<int>(axes.size());
  std::vector<PositionalAxes> out;
  std::vector<int> owner(n, 0);
  while (true) {
    std::vector<long long> product(k, 1);
    for (int a = 0; a < n; ++a) product[owner[a]] *= axes[a].size;
    bool fits = true;
    for (int p = 0; p < k; ++p) fits = fits && product[p] == sizes[p];
    if (fits) {
      // The cartesian product of each position's orders.
      PositionalAxes base(k);
      for (int a = 0; a < n; ++a) base[owner[a]].push_back(axes[a].name);
      std::vector<PositionalAxes> orders{base};
      for (int p = 0; p < k; ++p) {
        std::vector<PositionalAxes> next;
        for (const auto& partial : orders) {
          std::vector<std::string> order = partial[p];
          std::sort(order.begin(), order.end());
          do {
            next.push_back(partial);
            next.back()[p] = order;
          } while (std::next_permutation(order.begin(), order.end()));
        }
        orders = std::move(next);
      }
      out.insert(out.end(), orders.begin(), orders.end());
    }
    int a = 0;
    while (a < n && owner[a] == k - 1) owner[a++] = 0;
    if (a == n) break;
    ++owner[a];
  }
  return out;
}

std::string axis_name(int model_axes_before) {
  return model_axes_before == 0 ? "model" : fmt::format("model{}", model_axes_before + 1);
}

}  // namespace

SearchSpace::SearchSpace(const RunConfig& base, const SearchSpec& spec) : spec_(spec) {
  layout_dims_ = spec.layout_dims;
  for (const auto& [dim, axis] : spec.pinned_layout) {
    if (std::find(layout_dims_.begin(), layout_dims_.end(), dim) == layout_dims_.end())
      layout_dims_.push_back(dim);
  }
  for (const auto& shape : spec.mesh_shapes)
    listed_shapes_.push_back(mtf::MeshShape::parse(shape).to_string());
  // The pipelines by stage count, in the order the spec lists them; without pipeline keys, the base's own.
  const std::vector<PipelineChoice> pipelines = pipeline_choices(spec, base);
  pipelines_written_ = !pipelines.empty();
  for (const PipelineChoice& p :
       pipelines_written_
           ? pipelines
           : std::vector<PipelineChoice>{{base.model.pipeline.stages, base.model.pipeline.microbatches}}) {
    auto same = std::find_if(pipelines_.begin(), pipelines_.end(),
                             [&](const auto& e) { return e.first == p.stages; });
    if (same == pipelines_.end()) same = pipelines_.insert(pipelines_.end(), {p.stages, {}});
    same->second.push_back(p);
  }
  weight_sharding_ = weight_sharding_choices(spec, base);
  weight_sharding_written_ = !spec.weight_sharding.empty();
  const int cores = base.hardware.topology.num_cores();
  for (const auto& [stages, choices] : pipelines_) {
    if (cores % stages != 0) continue;  // the base's own stage count, which the stage axis need not equal
    std::vector<std::vector<int>> sizes;
    if (stages > 1 && cores == stages) sizes.push_back({});  // the stage axis alone
    for (int rank = 1; rank <= spec.mesh_dims; ++rank) {
      std::vector<int> prefix;
      factorisations(cores / stages, rank, prefix, sizes);
    }
    for (auto& s : sizes) shapes_.push_back({stages, std::move(s)});
  }
  std::vector<topo::PhysicalAxis> physical;
  for (const auto& axis : base.hardware.topology.axes()) {
    if (axis.size > 1) physical.push_back(axis);
  }
  for (const SearchShape& shape : shapes_) {
    std::vector<int> axis_sizes = shape.sizes;
    if (shape.stages > 1) axis_sizes.insert(axis_sizes.begin(), shape.stages);
    std::vector<MappingChoice> choices;
    for (const auto& mapping : spec.mappings) {
      if (mapping != kExplicitMappings) {
        choices.push_back({mapping, {}});
        continue;
      }
      for (auto& axes : axis_assignments(axis_sizes, physical)) choices.push_back({"", std::move(axes)});
    }
    mapping_choices_.push_back(std::move(choices));
  }
  // One state per distinct mesh and layout: states naming the same candidate differ only in the order of
  // equal roles, and the first one found stands for them all.
  std::set<std::string> seen;
  for (int s = 0; s < static_cast<int>(shapes_.size()); ++s) {
    const int rank = static_cast<int>(shapes_[s].sizes.size());
    SearchState state;
    state.shape = s;
    state.placement.assign(layout_dims_.size(), 0);
    state.algorithm.assign(rank, 0);
    // Every placement vector, as an odometer over 0..rank.
    while (true) {
      if (const auto c = structure(state); c && seen.insert(c->mesh_shape + "|" + c->layout).second) {
        structures_.push_back(state);
        size_ += combinations(state);
      }
      std::size_t i = 0;
      while (i < state.placement.size() && state.placement[i] == rank) state.placement[i++] = 0;
      if (i == state.placement.size()) break;
      ++state.placement[i];
    }
  }
}

int SearchSpace::pipeline_count(int shape) const {
  for (const auto& [stages, choices] : pipelines_) {
    if (stages == shapes_.at(shape).stages) return static_cast<int>(choices.size());
  }
  return 0;
}

bool SearchSpace::splits_batch(const SearchState& state) const {
  for (std::size_t d = 0; d < layout_dims_.size(); ++d) {
    if (layout_dims_[d] == "batch" && state.placement[d] > 0) return true;
  }
  return false;
}

int SearchSpace::weight_sharding_count(const SearchState& state) const {
  return weight_sharding_written_ && !splits_batch(state) ? 1 : static_cast<int>(weight_sharding_.size());
}

std::uint64_t SearchSpace::combinations(const SearchState& structure) const {
  std::uint64_t count = mapping_choices_.at(structure.shape).size();
  for (std::size_t i = 0; i < shapes_.at(structure.shape).sizes.size(); ++i) count *= spec_.algorithms.size();
  return count * pipeline_count(structure.shape) * weight_sharding_count(structure);
}

std::optional<Candidate> SearchSpace::structure(const SearchState& state, std::vector<int>* positions) const {
  const SearchShape& shape = shapes_.at(state.shape);
  const std::vector<int>& sizes = shape.sizes;
  const int rank = static_cast<int>(sizes.size());
  std::vector<bool> used(rank + 1, false);
  int batch_position = 0;
  for (std::size_t d = 0; d < layout_dims_.size(); ++d) {
    used[state.placement[d]] = true;
    if (layout_dims_[d] == "batch") batch_position = state.placement[d];
  }
  for (int p = 1; p <= rank; ++p) {
    if (!used[p]) return std::nullopt;  // an axis that splits nothing replicates all the work along it
  }
  // The stage axis first (position 0), then the batch axis, then the others in position order.
  const bool staged = shape.stages > 1;
  std::vector<int> order;
  if (staged) order.push_back(0);
  if (batch_position > 0) order.push_back(batch_position);
  for (int p = 1; p <= rank; ++p) {
    if (p != batch_position) order.push_back(p);
  }
  std::vector<std::string> names(rank + 1);
  int model_axes = 0;
  for (const int p : order) {
    names[p] = p == 0 ? "stage" : p == batch_position ? "batch" : axis_name(model_axes++);
  }
  Candidate c;
  std::vector<std::string> shape_parts, rules;
  for (const int p : order)
    shape_parts.push_back(fmt::format("{}:{}", names[p], p == 0 ? shape.stages : sizes[p - 1]));
  for (std::size_t d = 0; d < layout_dims_.size(); ++d) {
    if (state.placement[d] > 0) rules.push_back(layout_dims_[d] + ":" + names[state.placement[d]]);
  }
  for (const auto& pin : spec_.pinned_layout) {
    if (std::find(rules.begin(), rules.end(), pin.first + ":" + pin.second) == rules.end())
      return std::nullopt;
  }
  if (staged) rules.push_back("stage:stage");  // the pipelined model's stage dim on its axis
  c.mesh_shape = join(shape_parts, ";");
  if (!listed_shapes_.empty() &&
      std::find(listed_shapes_.begin(), listed_shapes_.end(), c.mesh_shape) == listed_shapes_.end())
    return std::nullopt;
  c.layout = join(rules, ";");
  const std::vector<MappingChoice>& choices = mapping_choices_.at(state.shape);
  if (choices.empty()) return std::nullopt;  // only explicit mappings, and none fits this mesh
  const MappingChoice& choice = choices.at(state.mapping);
  if (choice.axes.empty()) {
    c.mapping = choice.text;
  } else {
    // The choice's axes are in the order of the shape's axes: the stage axis, then the sizes.
    mtf::MappingSpec::Assignment assignment;
    for (const int p : order) assignment.emplace_back(names[p], choice.axes[staged ? p : p - 1]);
    c.mapping = mtf::MappingSpec::axes(assignment).to_string();
  }
  for (const int p : order) c.algorithms.emplace_back(names[p], kDefaultAlgorithm);
  if (positions) *positions = order;
  return c;
}

std::optional<Candidate> SearchSpace::candidate(const SearchState& state) const {
  std::vector<int> positions;  // of the candidate's axes: algorithms are chosen per position
  std::optional<Candidate> c = structure(state, &positions);
  if (!c) return c;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    // The stage axis's collectives are the stage shifts' permutes, which take no algorithm.
    if (positions[i] > 0) c->algorithms[i].second = spec_.algorithms.at(state.algorithm.at(positions[i] - 1));
  }
  if (weight_sharding_written_) {
    const auto mode =
        splits_batch(state) ? weight_sharding_.at(state.weight_sharding) : mtf::WeightShardingMode::none;
    c->weight_sharding = mtf::weight_sharding_modes().name_of(mode);
  }
  if (pipelines_written_) {
    for (const auto& [stages, choices] : pipelines_) {
      if (stages != shapes_[state.shape].stages) continue;
      c->pipeline_stages = choices.at(state.pipeline).stages;
      c->microbatches = choices.at(state.pipeline).microbatches;
    }
  }
  return c;
}

std::vector<Candidate> SearchSpace::enumerate(std::uint64_t limit) const {
  std::vector<Candidate> out;
  out.reserve(std::min(size_, limit));
  for (SearchState state : structures_) {
    const int rank = static_cast<int>(shapes_[state.shape].sizes.size());
    const int mappings = static_cast<int>(mapping_choices_[state.shape].size());
    for (state.pipeline = 0; state.pipeline < pipeline_count(state.shape); ++state.pipeline) {
      for (state.weight_sharding = 0; state.weight_sharding < weight_sharding_count(state);
           ++state.weight_sharding) {
        for (state.mapping = 0; state.mapping < mappings; ++state.mapping) {
          state.algorithm.assign(rank, 0);
          while (true) {
            if (out.size() == limit) return out;
            out.push_back(*candidate(state));
            int i = rank - 1;
            while (i >= 0 && state.algorithm[i] + 1 == static_cast<int>(spec_.algorithms.size()))
              state.algorithm[i--] = 0;
            if (i < 0) break;
            ++state.algorithm[i];
          }
        }
      }
    }
  }
  TPUSIM_CHECK(out.size() == size_);
  return out;
}

// Choices with one option draw no number, so that a space without them draws what it always drew.
SearchState SearchSpace::random_state(std::mt19937_64& random) const {
  TPUSIM_CHECK(!structures_.empty());
  SearchState state = structures_[random() % structures_.size()];
  state.mapping = static_cast<int>(random() % mapping_choices_[state.shape].size());
  for (int& a : state.algorithm) a = static_cast<int>(random() % spec_.algorithms.size());
  if (const int n = pipeline_count(state.shape); n > 1) state.pipeline = static_cast<int>(random() % n);
  if (const int n = weight_sharding_count(state); n > 1)
    state.weight_sharding = static_cast<int>(random() % n);
  return state;
}

SearchState SearchSpace::neighbour(const SearchState& state, std::mt19937_64& random) const {
  // One choice changes; a new mesh rank re-draws the placements it leaves out of range, a new stage count
  // the pipeline. The pipeline and weight sharding are choices only where the space varies them.
  constexpr int kAttempts = 1000;
  const auto current = candidate(state);
  const std::string current_key = current ? current->key() : "";
  bool pipelines_vary = false;
  for (const auto& [stages, choices] : pipelines_) pipelines_vary = pipelines_vary || choices.size() > 1;
  std::vector<int> extra;  // 0: pipeline, 1: weight sharding
  if (pipelines_vary) extra.push_back(0);
  if (weight_sharding_.size() > 1) extra.push_back(1);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    SearchState next = state;
    const std::size_t fixed = 1 + layout_dims_.size() + 1 + next.algorithm.size();
    const std::size_t which = random() % (fixed + extra.size());
    if (which == 0) {
      next.shape = static_cast<int>(random() % shapes_.size());
      const int rank = static_cast<int>(shapes_[next.shape].sizes.size());
      for (int& p : next.placement) {
        if (p > rank) p = rank == 0 ? 0 : 1 + static_cast<int>(random() % rank);
      }
      next.algorithm.resize(rank, 0);
      const std::size_t mappings = mapping_choices_[next.shape].size();
      if (mappings == 0) continue;
      if (next.mapping >= static_cast<int>(mappings)) next.mapping = static_cast<int>(random() % mappings);
      if (const int n = pipeline_count(next.shape); next.pipeline >= n)
        next.pipeline = static_cast<int>(random() % n);
    } else if (which <= layout_dims_.size()) {
      const int rank = static_cast<int>(shapes_[next.shape].sizes.size());
      next.placement[which - 1] = static_cast<int>(random() % (rank + 1));
    } else if (which == layout_dims_.size() + 1) {
      next.mapping = static_cast<int>(random() % mapping_choices_[next.shape].size());
    } else if (which < fixed) {
      next.algorithm[which - layout_dims_.size() - 2] = static_cast<int>(random() % spec_.algorithms.size());
    } else if (extra[which - fixed] == 0) {
      next.pipeline = static_cast<int>(random() % pipeline_count(next.shape));
    } else {
      next.weight_sharding = static_cast<int>(random() % weight_sharding_.size());
    }
    const auto a = candidate(next);
    if (a && (!current || a->key() != current_key)) return next;
  }
  return state;
}

std::optional<SearchState> SearchSpace::state_of(const std::string& mesh_shape, const std::string& layout,
                                                 const std::string& mapping,
                                                 const TrainingChoice& training) const {
  const std::string wanted_shape = mtf::MeshShape::parse(mesh_shape).to_string();
  const std::string wanted_mapping = mtf::MappingSpec::parse(mapping).to_string();
  const auto wanted_rules = sorted_rules(layout);
  const auto wanted = [&](const Candidate& c) {
    const bool sharding = c.weight_sharding.empty() || training.weight_sharding.empty() ||
                          c.weight_sharding == training.weight_sharding;
    const bool pipeline =
        c.pipeline_stages == 0 || training.pipeline_stages == 0 ||
        (c.pipeline_stages == training.pipeline_stages && c.microbatches == training.microbatches);
    return sharding && pipeline && c.mesh_shape == wanted_shape && sorted_rules(c.layout) == wanted_rules &&
           mtf::MappingSpec::parse(c.mapping).to_string() == wanted_mapping;
  };
  for (SearchState state : structures_) {
    const int mappings = static_cast<int>(mapping_choices_[state.shape].size());
    for (state.pipeline = 0; state.pipeline < pipeline_count(state.shape); ++state.pipeline) {
      for (state.weight_sharding = 0; state.weight_sharding < weight_sharding_count(state);
           ++state.weight_sharding) {
        for (state.mapping = 0; state.mapping < mappings; ++state.mapping) {
          if (wanted(*candidate(state))) return state;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace tpusim::workloads
