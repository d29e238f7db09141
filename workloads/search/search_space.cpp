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

std::string Candidate::algorithms_text() const {
  std::vector<std::string> parts;
  bool all_default = true;
  for (const auto& [axis, name] : algorithms) {
    parts.push_back(axis + "=" + name);
    all_default = all_default && name == kDefaultAlgorithm;
  }
  return all_default ? std::string(kDefaultAlgorithm) : join(parts, ";");
}

std::string Candidate::key() const {
  return fmt::format("{}|{}|{}|{}", mesh_shape, layout, mapping, algorithms_text());
}

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
  const int cores = base.hardware.topology.num_cores();
  for (int rank = 1; rank <= spec.mesh_dims; ++rank) {
    std::vector<int> prefix;
    factorisations(cores, rank, prefix, shapes_);
  }
  std::vector<topo::PhysicalAxis> physical;
  for (const auto& axis : base.hardware.topology.axes()) {
    if (axis.size > 1) physical.push_back(axis);
  }
  for (const auto& sizes : shapes_) {
    std::vector<MappingChoice> choices;
    for (const auto& mapping : spec.mappings) {
      if (mapping != kExplicitMappings) {
        choices.push_back({mapping, {}});
        continue;
      }
      for (auto& axes : axis_assignments(sizes, physical)) choices.push_back({"", std::move(axes)});
    }
    mapping_choices_.push_back(std::move(choices));
  }
  // One state per distinct mesh and layout: states naming the same candidate differ only in the order of
  // equal roles, and the first one found stands for them all.
  std::set<std::string> seen;
  for (int s = 0; s < static_cast<int>(shapes_.size()); ++s) {
    const int rank = static_cast<int>(shapes_[s].size());
    SearchState state;
    state.shape = s;
    state.placement.assign(layout_dims_.size(), 0);
    state.algorithm.assign(rank, 0);
    // Every placement vector, as an odometer over 0..rank.
    while (true) {
      if (const auto c = structure(state); c && seen.insert(c->mesh_shape + "|" + c->layout).second) {
        structures_.push_back(state);
        size_ += combinations(s);
      }
      std::size_t i = 0;
      while (i < state.placement.size() && state.placement[i] == rank) state.placement[i++] = 0;
      if (i == state.placement.size()) break;
      ++state.placement[i];
    }
  }
}

std::uint64_t SearchSpace::combinations(int shape) const {
  std::uint64_t count = mapping_choices_.at(shape).size();
  for (std::size_t i = 0; i < shapes_.at(shape).size(); ++i) count *= spec_.algorithms.size();
  return count;
}

std::optional<Candidate> SearchSpace::structure(const SearchState& state, std::vector<int>* positions) const {
  const std::vector<int>& sizes = shapes_.at(state.shape);
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
  // The batch axis first, then the others in position order.
  std::vector<int> order;
  if (batch_position > 0) order.push_back(batch_position);
  for (int p = 1; p <= rank; ++p) {
    if (p != batch_position) order.push_back(p);
  }
  std::vector<std::string> names(rank + 1);
  int model_axes = 0;
  for (const int p : order) names[p] = p == batch_position ? "batch" : axis_name(model_axes++);
  Candidate c;
  std::vector<std::string> shape_parts, rules;
  for (const int p : order) shape_parts.push_back(fmt::format("{}:{}", names[p], sizes[p - 1]));
  for (std::size_t d = 0; d < layout_dims_.size(); ++d) {
    if (state.placement[d] > 0) rules.push_back(layout_dims_[d] + ":" + names[state.placement[d]]);
  }
  for (const auto& pin : spec_.pinned_layout) {
    if (std::find(rules.begin(), rules.end(), pin.first + ":" + pin.second) == rules.end())
      return std::nullopt;
  }
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
    mtf::MappingSpec::Assignment assignment;
    for (const int p : order) assignment.emplace_back(names[p], choice.axes[p - 1]);
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
    c->algorithms[i].second = spec_.algorithms.at(state.algorithm.at(positions[i] - 1));
  }
  return c;
}

std::vector<Candidate> SearchSpace::enumerate(std::uint64_t limit) const {
  std::vector<Candidate> out;
  out.reserve(std::min(size_, limit));
  for (SearchState state : structures_) {
    const int rank = static_cast<int>(shapes_[state.shape].size());
    const int mappings = static_cast<int>(mapping_choices_[state.shape].size());
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
  TPUSIM_CHECK(out.size() == size_);
  return out;
}

SearchState SearchSpace::random_state(std::mt19937_64& random) const {
  TPUSIM_CHECK(!structures_.empty());
  SearchState state = structures_[random() % structures_.size()];
  state.mapping = static_cast<int>(random() % mapping_choices_[state.shape].size());
  for (int& a : state.algorithm) a = static_cast<int>(random() % spec_.algorithms.size());
  return state;
}

SearchState SearchSpace::neighbour(const SearchState& state, std::mt19937_64& random) const {
  // One choice changes; a new mesh rank re-draws the placements it leaves out of range.
  constexpr int kAttempts = 1000;
  const auto current = candidate(state);
  const std::string current_key = current ? current->key() : "";
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    SearchState next = state;
    const std::size_t choices = 1 + layout_dims_.size() + 1 + next.algorithm.size();
    const std::size_t which = random() % choices;
    if (which == 0) {
      next.shape = static_cast<int>(random() % shapes_.size());
      const int rank = static_cast<int>(shapes_[next.shape].size());
      for (int& p : next.placement) {
        if (p > rank) p = 1 + static_cast<int>(random() % rank);
      }
      next.algorithm.resize(rank, 0);
      const std::size_t mappings = mapping_choices_[next.shape].size();
      if (mappings == 0) continue;
      if (next.mapping >= static_cast<int>(mappings)) next.mapping = static_cast<int>(random() % mappings);
    } else if (which <= layout_dims_.size()) {
      const int rank = static_cast<int>(shapes_[next.shape].size());
      next.placement[which - 1] = static_cast<int>(random() % (rank + 1));
    } else if (which == layout_dims_.size() + 1) {
      next.mapping = static_cast<int>(random() % mapping_choices_[next.shape].size());
    } else {
      next.algorithm[which - layout_dims_.size() - 2] = static_cast<int>(random() % spec_.algorithms.size());
    }
    const auto a = candidate(next);
    if (a && (!current || a->key() != current_key)) return next;
  }
  return state;
}

std::optional<SearchState> SearchSpace::state_of(const std::string& mesh_shape, const std::string& layout,
                                                 const std::string& mapping) const {
  const std::string wanted_shape = mtf::MeshShape::parse(mesh_shape).to_string();
  const std::string wanted_mapping = mtf::MappingSpec::parse(mapping).to_string();
  const auto wanted_rules = sorted_rules(layout);
  for (SearchState state : structures_) {
    const int mappings = static_cast<int>(mapping_choices_[state.shape].size());
    for (state.mapping = 0; state.mapping < mappings; ++state.mapping) {
      const auto c = candidate(state);
      if (c->mesh_shape == wanted_shape && sorted_rules(c->layout) == wanted_rules &&
          mtf::MappingSpec::parse(c->mapping).to_string() == wanted_mapping)
        return state;
    }
  }
  return std::nullopt;
}

std::string candidate_config_yaml(const std::string& base_yaml, const Candidate& candidate) {
  YAML::Node root = YAML::Load(base_yaml);
  YAML::Node mesh(YAML::NodeType::Map);
  mesh["shape"] = candidate.mesh_shape;
  mesh["mapping"] = candidate.mapping;
  mesh["layout"] = candidate.layout;
  root["mesh"] = mesh;
  YAML::Node collectives(YAML::NodeType::Map);
  for (const auto& [axis, name] : candidate.algorithms) {
    if (name != kDefaultAlgorithm) collectives[axis] = name;
  }
  if (root["hardware"] && root["hardware"]["collectives"]) root["hardware"].remove("collectives");
  if (collectives.size() > 0) root["hardware"]["collectives"] = collectives;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace tpusim::workloads
