// Fuzz target: the mesh-tensor engine's strings, parsing only: a mesh shape ("rows:16;cols:32"), layout rules
// ("batch:rows;hidden:cols") and a mapping ("rings", "model=core+x;batch=y"). Every input goes to all three
// parsers: a string meant for one is hostile input to the others.
#include "fuzz_input.hpp"
#include "mesh_tf/layout_rules.hpp"
#include "mesh_tf/mapping_spec.hpp"
#include "mesh_tf/mesh_shape.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::mtf::MeshShape::parse(text); });
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::mtf::LayoutRules::parse(text); });
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::mtf::MappingSpec::parse(text); });
  return 0;
}
