#include "tests/mesh_tf/reference_harness.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/execution.hpp"

namespace tpusim::mtf::testing {
namespace ref = tpusim::mtf::reference;

Shape shape_of(const std::vector<ref::Dim>& dims) {
  std::vector<Dimension> out;
  for (const auto& d : dims) out.emplace_back(d.name, d.size);
  return Shape(out);
}

std::vector<ref::Dim> dims_of(const Shape& shape) {
  std::vector<ref::Dim> out;
  for (const auto& d : shape.dims()) out.push_back({d.name, d.size});
  return out;
}

ref::Ref random_ref(const std::vector<ref::Dim>& dims, std::mt19937_64& rng, double low, double high) {
  ref::Ref out(dims);
  std::uniform_real_distribution<double> value(low, high);
  // Values exactly representable in fp32, so the engine and the reference start from the same numbers.
  for (auto& v : out.data) v = static_cast<float>(value(rng));
  return out;
}

std::vector<ref::Dim> shuffled(std::vector<ref::Dim> dims, std::mt19937_64& rng) {
  std::shuffle(dims.begin(), dims.end(), rng);
  return dims;
}

namespace {

std::string describe(const std::vector<ref::Dim>& dims) {
  std::ostringstream out;
  out << "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out << (i ? ", " : "") << dims[i].name << ":" << dims[i].size;
  out << "]";
  return out.str();
}

std::vector<float> floats(const ref::Ref& x) { return std::vector<float>(x.data.begin(), x.data.end()); }

bool close(double engine, double expected, double atol, double rtol) {
  return std::isfinite(engine) && std::abs(engine - expected) <= atol + rtol * std::abs(expected);
}

// The loss sum(y * weights) of the reference program.
double reference_loss(const ReferenceCase& c, const std::vector<ref::Ref>& inputs, const ref::Ref& weights) {
  const ref::Ref y = c.reference(inputs);
  double loss = 0;
  for (std::size_t i = 0; i < y.data.size(); ++i) loss += y.data[i] * weights.data[i];
  return loss;
}

// Layout rules over the dims of the case that split evenly over the mesh, at most one per mesh dim.
std::string random_layout(const ReferenceCase& c, const ref::Ref& output, const MeshShape& mesh,
                          std::mt19937_64& rng) {
  std::vector<ref::Dim> candidates;
  auto consider = [&](const std::vector<ref::Dim>& dims) {
    for (const auto& d : dims) {
      if (std::find(c.unsplittable.begin(), c.unsplittable.end(), d.name) != c.unsplittable.end()) continue;
      if (std::none_of(candidates.begin(), candidates.end(),
                       [&](const ref::Dim& e) { return e.name == d.name; }))
        candidates.push_back(d);
    }
  };
  for (const auto& in : c.inputs) consider(in.dims);
  consider(output.dims);
  candidates = shuffled(candidates, rng);
  std::string layout;
  for (int m = 0; m < mesh.rank(); ++m) {
    for (auto it = candidates.begin(); it != candidates.end(); ++it) {
      if (it->size % mesh.dim_size(m) != 0 || rng() % 4 == 0) continue;  // sometimes leave a mesh dim unused
      layout += (layout.empty() ? "" : ";") + it->name + ":" + mesh.dim_name(m);
      candidates.erase(it);
      break;
    }
  }
  return layout;
}

void check_one_layout(const ReferenceCase& c, const ref::Ref& expected, const ref::Ref& weights,
                      const std::vector<std::vector<double>>& expected_grads, const std::string& mesh,
                      const std::string& layout, const HarnessOptions& options) {
  INFO("case " << c.name << " on mesh '" << mesh << "' with layout '" << layout << "'");
  Graph g(3);
  std::vector<Tensor> variables;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    variables.push_back(
        g.variable("in" + std::to_string(i), shape_of(c.inputs[i].dims), Initializer::zeros()));
  }
  const Tensor y = c.build(variables);
  REQUIRE(dims_of(y.shape()).size() == expected.dims.size());
  INFO("engine output " << y.shape().to_string() << ", reference " << describe(expected.dims));
  REQUIRE(y.shape() == shape_of(expected.dims));
  const Tensor weight_input = g.input("weights", y.shape());
  std::vector<Tensor> fetches = {y};
  if (c.check_gradients) {
    const Tensor loss = reduce_sum(mul(y, weight_input), Shape{});
    const auto grads = gradients(loss, variables);
    for (std::size_t i = 0; i < grads.size(); ++i) {
      INFO("gradient of input " << i << " has shape " << grads[i].shape().to_string());
      CHECK(grads[i].shape() == variables[i].shape());  // same dims in the same order as the variable
    }
    fetches.insert(fetches.end(), grads.begin(), grads.end());
  }
  const MeshShape mesh_shape = MeshShape::parse(mesh);
  ExecutionOptions execution;
  execution.algorithms = options.algorithms;
  const bool simulated = mesh_shape.size() > 1 && options.simulator != nullptr;
  if (!simulated) execution.algorithms.clear();
  Executor executor(g, mesh_shape, LayoutRules::parse(layout), simulated ? options.simulator : nullptr,
                    execution);
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    executor.set_variable_value(variables[i], floats(c.inputs[i]));
  executor.feed(weight_input, floats(weights));
  const auto fetched = executor.run(fetches).fetched;
  for (std::size_t j = 0; j < expected.data.size(); ++j) {
    if (!close(fetched[0][j], expected.data[j], options.forward_atol, options.forward_rtol)) {
      FAIL_CHECK("forward element " << j << ": engine " << fetched[0][j] << ", reference "
                                    << expected.data[j]);
      break;
    }
  }
  for (std::size_t i = 0; c.check_gradients && i < c.inputs.size(); ++i) {
    const auto& engine = fetched[1 + i];
    REQUIRE(engine.size() == expected_grads[i].size());
    for (std::size_t j = 0; j < engine.size(); ++j) {
      if (!close(engine[j], expected_grads[i][j], options.gradient_atol, options.gradient_rtol)) {
        FAIL_CHECK("d loss / d input " << i << " " << describe(c.inputs[i].dims) << " element " << j
                                       << ": engine " << engine[j] << ", finite differences "
                                       << expected_grads[i][j]);
        break;
      }
    }
  }
}

}  // namespace

void check_against_reference(const ReferenceCase& c, std::mt19937_64& rng, const HarnessOptions& options) {
  const ref::Ref expected = c.reference(c.inputs);
  const ref::Ref weights = random_ref(expected.dims, rng);
  std::vector<std::vector<double>> grads;
  if (c.check_gradients) {
    // Central differences of the reference in double: truncation ~eps^2, rounding ~1e-16/eps.
    const double eps = 1e-6;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      std::vector<double> grad(c.inputs[i].data.size());
      for (std::size_t j = 0; j < grad.size(); ++j) {
        auto plus = c.inputs, minus = c.inputs;
        plus[i].data[j] += eps;
        minus[i].data[j] -= eps;
        grad[j] = (reference_loss(c, plus, weights) - reference_loss(c, minus, weights)) / (2 * eps);
      }
      grads.push_back(std::move(grad));
    }
  }
  check_one_layout(c, expected, weights, grads, "", "", options);
  const MeshShape mesh = MeshShape::parse(options.mesh);
  for (const auto& layout : c.layouts)
    check_one_layout(c, expected, weights, grads, options.mesh, layout, options);
  for (int l = 0; c.layouts.empty() && l < options.random_layouts; ++l) {
    check_one_layout(c, expected, weights, grads, options.mesh, random_layout(c, expected, mesh, rng),
                     options);
  }
}

// Up to `count` distinct dims named i, j, k, l, m with sizes 2..4.
std::vector<reference::Dim> random_dims(std::mt19937_64& rng, int count) {
  std::vector<reference::Dim> pool;
  std::uniform_int_distribution<int> size(2, 4);
  for (const char* name : {"i", "j", "k", "l", "m"}) pool.push_back({name, size(rng)});
  pool = shuffled(pool, rng);
  pool.resize(count);
  return pool;
}

// A random non-empty subset of `dims` (at least `min` of them), in random order.
std::vector<reference::Dim> random_subset(const std::vector<reference::Dim>& dims, std::mt19937_64& rng,
                                          std::size_t min) {
  std::vector<reference::Dim> out;
  do {
    out.clear();
    for (const auto& d : dims) {
      if (rng() % 2) out.push_back(d);
    }
  } while (out.size() < min);
  return shuffled(out, rng);
}

std::vector<reference::Dim> without(const std::vector<reference::Dim>& dims, const std::string& name) {
  std::vector<reference::Dim> out;
  for (const auto& d : dims) {
    if (d.name != name) out.push_back(d);
  }
  return out;
}

std::vector<std::string> names(const std::vector<reference::Dim>& dims) {
  std::vector<std::string> out;
  for (const auto& d : dims) out.push_back(d.name);
  return out;
}

std::int64_t pick(std::mt19937_64& rng, std::int64_t low, std::int64_t high) {
  return std::uniform_int_distribution<std::int64_t>(low, high)(rng);
}

}  // namespace tpusim::mtf::testing
