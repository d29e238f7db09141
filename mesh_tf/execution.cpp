#include "mesh_tf/execution.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "mesh_tf/lowering.hpp"
#include "mesh_tf/pod_allreduce.hpp"
#include "mesh_tf/random.hpp"
#include "mesh_tf/slice_data.hpp"
#include "mesh_tf/step_schedule.hpp"
#include "sim/algorithm_choice.hpp"
#include "sim/algorithm_registry.hpp"
#include "sim/reference.hpp"
#include "sim/simulator.hpp"
#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

namespace {

// Simulated times of collectives, per simulator (one per process) and request signature: identical requests
// run in isolation take identical time, and sharing the table across executors makes numerics and timing-only
// runs report bit-identical times (a clock difference would otherwise round differently at a later clock).
std::map<std::string, sim::CollectiveResult>& shared_memo(const sim::Simulator* simulator) {
  static std::map<const sim::Simulator*, std::map<std::string, sim::CollectiveResult>> memos;
  return memos[simulator];
}

}  // namespace

struct Executor::Impl {
  const Graph& graph;
  MeshShape mesh;
  LayoutRules rules;
  sim::Simulator* simulator;
  ExecutionOptions options;
  MeshMapping mapping;
  Program program;
  Store store;
  std::set<int> fed;
  std::map<std::string, sim::CollectiveResult> own_memo;  // without a simulator, or not shared
  std::map<std::string, sim::CollectiveResult>& memo_result;
  std::map<std::vector<int>, std::vector<topo::Group>> group_cache;
  std::vector<topo::Group> pod_group_cache;
  const sim::AlgorithmRow* pod_allreduce = nullptr;  // options.pod_allreduce's row, once it is used
  std::map<std::string, std::vector<int>> links_by_signature;    // SimulatedConcurrency's
  std::map<std::string, std::vector<sim::AlgorithmRef>> auto_choices;  // by step signature and what was asked

  Impl(const Graph& g, MeshShape m, LayoutRules r, sim::Simulator* s, ExecutionOptions o)
      : graph(g),
        mesh(std::move(m)),
        rules(std::move(r)),
        simulator(s),
        options(std::move(o)),
        mapping(s ? MeshMapping(mesh, s->topology(), options.mapping) : MeshMapping(mesh)),
        memo_result(s && options.share_collective_times ? shared_memo(s) : own_memo) {
    LoweringOptions lowering;
    lowering.device = options.device;
    lowering.collective_backend = options.collective_backend;
    lowering.fusion = options.fusion;
    lowering.allreduce_combine_bytes = options.allreduce_combine_bytes;
    lowering.rematerialization = options.rematerialization;
    lowering.layer_checkpoint = options.layer_checkpoint;
    for (const auto& t : options.outputs) {
      if (!t.valid() || &t.graph() != &graph)
        throw InputError("execution: an output tensor is not from this graph");
      lowering.outputs.push_back(t.id());
    }
    for (const auto& [mesh_dim, algorithm] : options.algorithms) {
      if (mesh.index_of(mesh_dim) < 0) {
        throw InputError(
            fmt::format("collective algorithm '{}' given for mesh dimension '{}', but mesh {} has no such "
                        "dimension{}",
                        algorithm, mesh_dim, mesh.to_string(), did_you_mean(mesh_dim, mesh.shape().names())));
      }
    }
    program = lower(graph, mesh, rules, lowering);
    check_collective_algorithms();
    store.resize(program.values.size());
    if (options.numerics) initialise_variables();
  }

  const Value& source_value(const Tensor& t, OpKind kind, const char* what) const {
    if (!t.valid() || &t.graph() != &graph)
      throw InputError(fmt::format("{}: tensor is not from this graph", what));
    if (graph.producer(t).kind != kind) {
      throw InputError(fmt::format("{}: '{}' is not {}", what, t.name(),
                                   kind == OpKind::input ? "an input" : "a variable"));
    }
    return program.values[program.raw_value_of_tensor[t.id()]];
  }

  void initialise_variables() {
    for (const auto& op : graph.ops()) {
      if (op.kind != OpKind::variable) continue;
      const Value& v = program.values[program.raw_value_of_tensor[op.output]];
      const VariableAttributes& variable = op.get<VariableAttributes>();
      const Initializer& init = variable.init;
      std::vector<float> full(v.layout.shape().num_elements());
      for (std::size_t i = 0; i < full.size(); ++i) {
        switch (init.kind) {
          case Initializer::Kind::zeros:
            full[i] = 0;
            break;
          case Initializer::Kind::constant:
            full[i] = init.value;
            break;
          case Initializer::Kind::normal:
            full[i] = static_cast<float>(init.value * standard_normal(variable.seed, i));
            break;
          case Initializer::Kind::uniform:
            full[i] = static_cast<float>(init.value * (2 * uniform01(variable.seed, i) - 1));
            break;
        }
      }
      store[v.id] = scatter(v, full, mesh);
    }
  }

  const topo::Topology* topology() const { return simulator ? &simulator->topology() : nullptr; }
  const std::vector<topo::Group>& groups(const std::vector<int>& dims) {
    auto it = group_cache.find(dims);
    if (it == group_cache.end()) it = group_cache.emplace(dims, mapping.groups(dims)).first;
    return it->second;
  }

  sim::CollectiveRequest request_for(const Step& step, const IssuedCollective& issued) {
    sim::CollectiveRequest request;
    request.kind = issued.kind;
    request.op = issued.reduce;
    request.groups = groups(issued.mesh_dims);
    const bool ring_family = request.kind == sim::CollectiveKind::allreduce ||
                             request.kind == sim::CollectiveKind::allgather ||
                             request.kind == sim::CollectiveKind::reduce_scatter;
    for (const int m : ring_family ? issued.mesh_dims : std::vector<int>{}) {
      const auto it = options.algorithms.find(mesh.dim_name(m));
      const std::string& name = it != options.algorithms.end() ? it->second : options.default_algorithm;
      // A reduce-scatter (weight-update sharding) takes the axis's algorithm where the kind has one of that
      // name ("auto", "ring", "bidir_ring", ...), else its default: the axis's setting was chosen for its
      // allreduces.
      const bool own = !name.empty() && (request.kind != sim::CollectiveKind::reduce_scatter ||
                                         name == sim::kAutoAlgorithm ||
                                         sim::find_algorithm(request.kind, name) != nullptr);
      request.algorithms.push_back(own ? sim::resolve_algorithm(request.kind, name)
                                       : sim::AlgorithmRef(sim::default_algorithm(request.kind)));
    }
    if (pod_allreduce_takes(options.pod_allreduce, topology(), request.kind, request.groups)) {
      if (pod_group_cache.empty()) {
        pod_allreduce = &sim::algorithm(sim::CollectiveKind::allreduce, options.pod_allreduce);
        pod_group_cache = pod_groups(simulator->topology(), *pod_allreduce);
      }
      request.groups = pod_group_cache;
      request.algorithms = {sim::AlgorithmRef(*pod_allreduce)};
    }
    if (step.collective == CollectiveOp::permute) request.permutation = permute_pairs(step, mapping);
    request.elements = issued.elements_per_core;
    request.element_bytes = issued.element_bytes;
    request.label = issued.how.empty() ? step.label : fmt::format("{} ({})", step.label, issued.how);
    // "auto" is chosen per collective, so per size, by simulating the candidates; the choice depends on
    // nothing else the step can change.
    if (simulator && sim::asks_auto(request)) {
      const std::string key =
          fmt::format("{}|{}", issued_signature(step, issued), sim::algorithm_list(request.algorithms));
      auto it = auto_choices.find(key);
      if (it == auto_choices.end()) {
        sim::AutoChoice choice = sim::fastest_algorithms(*simulator, request);
        it = auto_choices.emplace(key, choice.algorithms).first;
        // The winner's simulation is what running it alone gives: it serves as this collective's time.
        if (choice.result)
          memo_result.emplace(memo_signature(step, issued, choice.algorithms), *choice.result);
      }
      request.algorithms = it->second;
    }
    return request;
  }

  // The key of an issued collective's time among all the executors sharing memo_result.
  std::string memo_signature(const Step& step, const IssuedCollective& issued,
                             const std::vector<sim::AlgorithmRef>& algorithms) const {
    return fmt::format("{}|{}|{}|{}", mesh.to_string(), mapping.note(), issued_signature(step, issued),
                       sim::algorithm_list(algorithms));
  }

  // The step's signature, and which of its issued collectives: identical ones take identical time.
  static std::string issued_signature(const Step& step, const IssuedCollective& issued) {
    return fmt::format("{}/{}/{}/{}/{}", step.signature, sim::to_string(issued.kind),
                       fmt::join(issued.mesh_dims, ","), issued.elements_per_core, issued.element_bytes);
  }

  // Every distinct collective the program needs, checked against its algorithms now rather than in the middle
  // of a step: an allconcat is an allgather, which not every allreduce algorithm has. Without a simulator
  // collectives move data directly and no algorithm runs.
  void check_collective_algorithms() {
    if (!simulator) return;
    std::set<std::string> checked;
    for (const auto& step : program.steps) {
      if (!step.is_comm) continue;
      for (const auto& issued : step.record.issued) {
        try {
          const sim::CollectiveRequest request = request_for(step, issued);  // auto is resolved here
          if (!checked
                   .insert(fmt::format("{}|{}", issued_signature(step, issued),
                                       sim::algorithm_list(request.algorithms)))
                   .second)
            continue;
          sim::check_algorithms(simulator->topology(), request);
        } catch (const InputError& error) {
          std::vector<std::string> dims;
          for (const int m : issued.mesh_dims) dims.push_back(mesh.dim_name(m));
          throw CollectiveAlgorithmError(fmt::format("{} over mesh dimension {} ({}): {}",
                                                     sim::to_string(issued.kind), join(dims, ","), step.label,
                                                     error.what()),
                                         pod_allreduce_takes(options.pod_allreduce, topology(), issued.kind,
                                                             groups(issued.mesh_dims)));
        }
      }
    }
  }

  // Runs one collective as the backend issues it (collective_backend.hpp): data through the simulator
  // (numerics), time from the simulator, memoised per issued collective since identical requests run in
  // isolation take identical simulated time. Collectives issued in turn add their times.
  CollectiveTiming run_collective(const Step& step) {
    CollectiveTiming timing;
    timing.record = step.record;
    sim::Buffers data;
    if (options.numerics) data = pack_combined(step);  // allconcat: already masked
    double longest_s = -1;
    for (const auto& issued : step.record.issued) {
      sim::CollectiveRequest request = request_for(step, issued);
      const std::string signature = memo_signature(step, issued, request.algorithms);
      const bool known = memo_result.count(signature) > 0;
      if (options.numerics) {
        // A max allreduce issued as a stacked allconcat: every member's buffer becomes a slot per member of
        // the group, its own filled, the rest zeros; the masked sum gathers them, a local max reduces them.
        const bool stacked = step.record.reduce != issued.reduce;
        if (stacked) stack(data, issued.mesh_dims.at(0));
        if (simulator) {
          request.data = &data;
          const auto result = simulator->run(request);
          if (!known) memo_result[signature] = result;
        } else {
          data = sim::reference_result(request, data);
          if (!known) memo_result[signature] = sim::CollectiveResult{};
        }
        if (stacked) reduce_stack_max(data, mesh.dim_size(issued.mesh_dims.at(0)));
      } else if (!known) {
        memo_result[signature] = simulator ? simulator->run(request) : sim::CollectiveResult{};
      }
      const auto& result = memo_result.at(signature);
      timing.time_s += result.time_s;
      if (result.time_s > longest_s) {
        longest_s = result.time_s;
        timing.busbw_Bps = result.busbw_Bps;
      }
    }
    if (options.numerics) unpack_combined(step, data);
    return timing;
  }

  // A combined allreduce (allreduce_combiner.hpp) carries its members' buffers one after the other.
  sim::Buffers pack_combined(const Step& step) const {
    if (step.combined_steps.empty()) return pack(step, program, store, mapping);
    sim::Buffers data;
    for (const int m : step.combined_steps) {
      for (auto& [rank, buffer] : pack(program.steps[m], program, store, mapping)) {
        std::vector<float>& all = data[rank];
        all.insert(all.end(), buffer.begin(), buffer.end());
      }
    }
    return data;
  }
  void unpack_combined(const Step& step, const sim::Buffers& data) {
    if (step.combined_steps.empty()) return unpack(step, program, data, store, mapping);
    std::size_t offset = 0;
    for (const int m : step.combined_steps) {
      const std::size_t elements = program.values[program.steps[m].inputs.front()].layout.slice_elements();
      sim::Buffers part;
      for (const auto& [rank, buffer] : data) {
        part[rank].assign(buffer.begin() + static_cast<std::ptrdiff_t>(offset),
                          buffer.begin() + static_cast<std::ptrdiff_t>(offset + elements));
      }
      unpack(program.steps[m], program, part, store, mapping);
      offset += elements;
    }
  }

  void stack(sim::Buffers& data, int mesh_dim) const {
    const int copies = mesh.dim_size(mesh_dim);
    for (auto& [rank, buffer] : data) {
      const std::size_t slot = mesh.processor_coords(mapping.processor_of(rank))[mesh_dim];
      std::vector<float> stacked(buffer.size() * copies, 0.0f);
      std::copy(buffer.begin(), buffer.end(),
                stacked.begin() + static_cast<std::ptrdiff_t>(slot * buffer.size()));
      buffer = std::move(stacked);
    }
  }

  // The concurrent overlap policy's clock (step_schedule.hpp): the step's collectives as the backend issues
  // them, timing only, on the simulator's clock, onto which the step's times map from the first start.
  class SimulatedConcurrency final : public ConcurrentCollectives {
   public:
    explicit SimulatedConcurrency(Impl& impl) : impl_(impl) {}

    void start(std::size_t step_index, double start_s) override {
      sim::Simulator& simulator = *impl_.simulator;
      if (simulator.concurrent_in_flight() == 0) {
        origin_step_s_ = start_s;
        origin_simulated_s_ = simulator.now_s();
      }
      const Step& step = impl_.program.steps[step_index];
      std::vector<sim::CollectiveRequest> in_turn;
      for (const auto& issued : step.record.issued) in_turn.push_back(impl_.request_for(step, issued));
      steps_[simulator.start_concurrent(in_turn)] = step_index;
    }

    std::vector<std::pair<std::size_t, double>> advance(double until_s) override {
      sim::Simulator& simulator = *impl_.simulator;
      const double until =
          std::isfinite(until_s) ? origin_simulated_s_ + (until_s - origin_step_s_) : until_s;
      std::vector<std::pair<std::size_t, double>> ended;
      for (const int id : simulator.advance_concurrent(until)) {
        ended.emplace_back(steps_.at(id), origin_step_s_ + (simulator.now_s() - origin_simulated_s_));
        steps_.erase(id);
      }
      return ended;
    }

    bool share_links(std::size_t step, std::size_t other_step) override {
      const auto& a = links(step);
      const auto& b = links(other_step);
      auto i = a.begin();
      auto j = b.begin();
      while (i != a.end() && j != b.end()) {
        if (*i == *j) return true;
        *i < *j ? ++i : ++j;
      }
      return false;
    }

   private:
    // The links a step's collectives cross, sorted; the same for every step of one signature.
    const std::vector<int>& links(std::size_t step_index) {
      const Step& step = impl_.program.steps[step_index];
      auto it = impl_.links_by_signature.find(step.signature);
      if (it == impl_.links_by_signature.end()) {
        std::vector<int> all;
        for (const auto& issued : step.record.issued) {
          const auto crossed = impl_.simulator->links_crossed(impl_.request_for(step, issued));
          all.insert(all.end(), crossed.begin(), crossed.end());
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        it = impl_.links_by_signature.emplace(step.signature, std::move(all)).first;
      }
      return it->second;
    }

    Impl& impl_;
    double origin_step_s_ = 0, origin_simulated_s_ = 0;
    std::map<int, std::size_t> steps_;  // by the simulator's id
  };

  static void reduce_stack_max(sim::Buffers& data, int copies) {
    for (auto& [rank, buffer] : data) {
      const std::size_t elements = buffer.size() / copies;
      std::vector<float> reduced(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(elements));
      for (int copy = 1; copy < copies; ++copy) {
        for (std::size_t i = 0; i < elements; ++i)
          reduced[i] = std::max(reduced[i], buffer[copy * elements + i]);
      }
      buffer = std::move(reduced);
    }
  }
};

Executor::Executor(const Graph& graph, MeshShape mesh, LayoutRules rules, sim::Simulator* simulator,
                   ExecutionOptions options)
    : impl_(std::make_unique<Impl>(graph, std::move(mesh), std::move(rules), simulator, std::move(options))) {
}

Executor::~Executor() = default;

const MeshShape& Executor::mesh() const { return impl_->mesh; }
const MeshMapping& Executor::mapping() const { return impl_->mapping; }
const Counters& Executor::counters() const { return impl_->program.counters; }

LiveMemory Executor::live_memory() const {
  LiveMemory memory = mtf::live_memory(impl_->program, impl_->program.kept_values);
  memory.rematerialization = impl_->program.rematerialization;
  return memory;
}

const TensorLayout& Executor::layout(const Tensor& tensor) const {
  return impl_->program.values[impl_->program.raw_value_of_tensor.at(tensor.id())].layout;
}

void Executor::feed(const Tensor& input, const std::vector<float>& values) {
  const Value& v = impl_->source_value(input, OpKind::input, "feed");
  if (static_cast<std::int64_t>(values.size()) != v.layout.shape().num_elements()) {
    throw InputError(fmt::format("feed '{}': got {} values but shape {} has {}", input.name(), values.size(),
                                 v.layout.shape().to_string(), v.layout.shape().num_elements()));
  }
  if (!impl_->options.numerics) return;
  impl_->store[v.id] = scatter(v, values, impl_->mesh);
  impl_->fed.insert(v.id);
}

std::vector<float> Executor::variable_value(const Tensor& variable) const {
  const Value& v = impl_->source_value(variable, OpKind::variable, "variable_value");
  if (!impl_->options.numerics) {
    throw InputError(
        fmt::format("variable_value '{}': a timing-only executor holds no data", variable.name()));
  }
  return assemble(v, impl_->store[v.id], impl_->mesh);
}

void Executor::set_variable_value(const Tensor& variable, const std::vector<float>& values) {
  const Value& v = impl_->source_value(variable, OpKind::variable, "set_variable_value");
  if (static_cast<std::int64_t>(values.size()) != v.layout.shape().num_elements()) {
    throw InputError(fmt::format("set_variable_value '{}': got {} values but shape {} has {}",
                                 variable.name(), values.size(), v.layout.shape().to_string(),
                                 v.layout.shape().num_elements()));
  }
  if (impl_->options.numerics) impl_->store[v.id] = scatter(v, values, impl_->mesh);
}

StepResult Executor::run(const std::vector<Tensor>& fetches) {
  Impl& im = *impl_;
  Program& program = im.program;
  if (im.options.numerics) {
    for (const auto& t : im.graph.inputs()) {
      const int v = program.raw_value_of_tensor[t.id()];
      if (!im.fed.count(v)) throw InputError(fmt::format("run: input '{}' was not fed", t.name()));
    }
  }
  for (const auto& t : fetches) {
    if (!t.valid() || &t.graph() != &im.graph)
      throw InputError("run: a fetched tensor is not from this graph");
  }
  StepResult result;
  std::vector<double> durations(program.steps.size());
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const Step& step = program.steps[i];
    durations[i] = step.time_s;
    if (step.is_comm && step.combined_into >= 0) {
      durations[i] = 0;  // carried, data and time, by the collective it was combined into
    } else if (step.is_comm) {
      auto timing = im.run_collective(step);
      durations[i] = timing.time_s;
      result.collectives.push_back(std::move(timing));
    } else if (im.options.numerics) {
      const auto begin = std::chrono::steady_clock::now();
      step.kernel(im.store);
      if (step.is_einsum) {
        result.einsum_wall_s +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        result.einsum_executed_flops += step.executed_flops;
      }
    }
  }
  // Device and link parameters are range-checked where they are read, so every duration is finite.
  for (const double duration : durations) TPUSIM_CHECK(std::isfinite(duration) && duration >= 0);
  // Used only under the concurrent policy; without a simulator collectives keep their times alone.
  Impl::SimulatedConcurrency concurrency(im);
  result.timeline =
      schedule_step(program, durations, im.options.overlap, im.simulator ? &concurrency : nullptr);
  for (auto& entry : result.timeline.entries) {
    const Step& step = program.steps[entry.step];
    entry.family = step.is_comm ? sim::to_string(step.record.kind) : to_string(im.graph.op(entry.op).kind);
  }
  finalize_timeline(result.timeline);
  if (im.options.numerics) {
    for (const auto& t : fetches) {
      const Value& v = program.values[program.value_of_tensor[t.id()]];
      result.fetched.push_back(assemble(v, im.store[v.id], im.mesh));
    }
    if (!result.fetched.empty() && result.fetched[0].size() == 1) result.loss = result.fetched[0][0];
    std::vector<std::vector<float>> committed;
    for (const auto& a : program.assignments) committed.push_back(im.store[a.new_value]);
    for (std::size_t i = 0; i < program.assignments.size(); ++i) {
      im.store[program.assignments[i].variable_value] = std::move(committed[i]);
    }
    // Temporaries keep their buffers for the next step: reallocating them would fault in fresh pages.
  }
  return result;
}

}  // namespace tpusim::mtf
