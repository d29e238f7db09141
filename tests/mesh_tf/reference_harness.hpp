#pragma once
// Checks one engine program against the double-precision reference (reference.hpp): the forward value, the
// dimension order of the output and of every gradient, and every gradient element against central finite
// differences of the reference, on one core and on random layouts of a 2x2 mesh.
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "tests/mesh_tf/reference.hpp"

namespace tpusim::sim {
class Simulator;
}

namespace tpusim::mtf::testing {

struct ReferenceCase {
  std::string name;
  std::vector<reference::Ref> inputs;  // the values of the program's variables, in their dim orders
  std::function<Tensor(const std::vector<Tensor>&)> build;
  std::function<reference::Ref(const std::vector<reference::Ref>&)> reference;
  std::vector<std::string> unsplittable;  // dims no layout may split (the axis of concat, slice, ...)
  std::vector<std::string> layouts;       // checked instead of random ones when the op constrains them
  bool check_gradients = true;
};

struct HarnessOptions {
  int random_layouts = 2;                         // on mesh a:2;b:2, besides the single core
  sim::Simulator* simulator = nullptr;            // nullptr: collectives move data directly
  std::string mesh = "a:2;b:2";                   // for the random layouts
  std::map<std::string, std::string> algorithms;  // collective algorithm per mesh dim (with a simulator)
  double forward_atol = 1e-4, forward_rtol = 1e-4;
  double gradient_atol = 3e-4, gradient_rtol = 2e-3;
};

// Runs every check; failures are reported through Catch (CHECK) with the case name, layout and element.
void check_against_reference(const ReferenceCase& c, std::mt19937_64& rng,
                             const HarnessOptions& options = {});

// Random helpers for building cases.
reference::Ref random_ref(const std::vector<reference::Dim>& dims, std::mt19937_64& rng, double low = -1,
                          double high = 1);
// `dims` in a random order.
std::vector<reference::Dim> shuffled(std::vector<reference::Dim> dims, std::mt19937_64& rng);
Shape shape_of(const std::vector<reference::Dim>& dims);
std::vector<reference::Dim> dims_of(const Shape& shape);

// Random cases per op family.
constexpr int kSeeds = 12;
// Up to `count` distinct dims named i, j, k, l, m with sizes 2..4, in random order.
std::vector<reference::Dim> random_dims(std::mt19937_64& rng, int count);
// A random subset of `dims` with at least `min` of them, in random order.
std::vector<reference::Dim> random_subset(const std::vector<reference::Dim>& dims, std::mt19937_64& rng,
                                          std::size_t min = 1);
std::vector<reference::Dim> without(const std::vector<reference::Dim>& dims, const std::string& name);
std::vector<std::string> names(const std::vector<reference::Dim>& dims);
std::int64_t pick(std::mt19937_64& rng, std::int64_t low, std::int64_t high);  // uniform in [low, high]

}  // namespace tpusim::mtf::testing
