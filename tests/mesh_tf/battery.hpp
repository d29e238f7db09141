#pragma once
// The programs of the layout-invariance battery and helpers to run them on a mesh.
#include <memory>
#include <string>
#include <vector>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/graph.hpp"
#include "topologies/topology.hpp"

namespace tpusim::mtf::testing {

struct TestProgram {
  std::string name;
  std::unique_ptr<Graph> graph;
  std::vector<std::pair<Tensor, std::vector<float>>> feeds;
  std::vector<Tensor> fetches;  // forward outputs then gradients
  // Layout rules over mesh dims a, b, c (rules naming a mesh dim the mesh lacks are dropped).
  std::vector<std::string> layouts;
};

// Sizes are multiples of 8 so every dimension splits over meshes of up to 8 per mesh dimension; `scale`
// multiplies the batch-like dims (16 for the 512-core case).
TestProgram two_layer_mlp(int scale = 1);
TestProgram attention(int scale = 1);
TestProgram split_vocab_softmax(int scale = 1);
TestProgram moe_dispatch_program(int scale = 1);
TestProgram norm_shift_concat(int scale = 1);
TestProgram conv_net(int scale = 1);

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float scale = 1.0f);
// ids in [0, n)
std::vector<float> random_ids(std::size_t count, int n, std::uint64_t seed);

// Keeps only the rules whose mesh dim exists in `mesh`.
LayoutRules rules_for(const std::string& layout, const MeshShape& mesh);

// Runs one step and returns the fetched values.
std::vector<std::vector<float>> run_program(TestProgram& program, const MeshShape& mesh,
                                            const LayoutRules& rules, sim::Simulator* simulator);

// Largest |a-b| / (atol + rtol*|b|) over all fetched values; <= 1 means equal within tolerance.
double max_relative_error(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b,
                          double atol = 1e-5, double rtol = 1e-4);

}  // namespace tpusim::mtf::testing
