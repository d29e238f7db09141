// Mesh dimensions map onto physical axes so that each is a ring of neighbours.
#include <array>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "mesh_tf/mesh_mapping.hpp"
#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;
using namespace tpusim;

TEST_CASE("maps batch:16 model:32 onto the v2 pod as model = core+x and batch = y") {
  const auto topology = topo::preset("tpu-v2-pod");
  const MeshMapping mapping(MeshShape::parse("batch:16;model:32"), topology);
  CHECK(mapping.factored());
  CHECK(mapping.note() == "model = core+x, batch = y");
  // Consecutive members of a model group are on the same chip or neighbouring chips along x.
  for (const auto& group : mapping.groups({1})) {
    REQUIRE(group.size() == 32);
    for (int i = 0; i < 32; ++i) {
      const auto a = topo::coord_of(topology, group.ranks[i]);
      const auto b = topo::coord_of(topology, group.ranks[(i + 1) % 32]);
      const int hops = std::abs(a.chip[0] - b.chip[0]) % 15 + std::abs(a.chip[1] - b.chip[1]);
      CHECK(hops <= 1);
    }
  }
  // Every rank appears once; processor <-> rank round-trips.
  for (int p = 0; p < 512; ++p) CHECK(mapping.processor_of(mapping.rank_of(p)) == p);
}

TEST_CASE("group positions follow mesh coordinates") {
  const MeshShape mesh = MeshShape::parse("rows:2;cols:4");
  const MeshMapping mapping(mesh, topo::preset("ring-8"));
  const auto groups = mapping.groups({1});
  REQUIRE(groups.size() == 2);
  for (int row = 0; row < 2; ++row) {
    for (int col = 0; col < 4; ++col) {
      CHECK(mapping.processor_of(groups[row].ranks[col]) == mesh.processor_index({row, col}));
    }
  }
}

TEST_CASE("tiles the pod as Mesh-TensorFlow does when the mesh does not factor onto axes") {
  const MeshMapping mapping(MeshShape::parse("a:4;b:128"), topo::preset("tpu-v2-pod"));
  CHECK_FALSE(mapping.factored());
  CHECK(mapping.note() ==
        "tiled as Mesh-TensorFlow does: a = ring of 2x2 tiles, b = core+8x8 chips in a tile");
}

TEST_CASE("rejects a mesh whose size differs from the topology") {
  CHECK_THROWS_WITH(MeshMapping(MeshShape::parse("batch:16;model:30"), topo::preset("tpu-v2-pod")),
                    "mesh batch:16;model:30 has 480 cores but the topology tpu-v2-pod has 512");
}

TEST_CASE("mapping specs parse as rings, linear or axes per mesh dimension and round-trip") {
  CHECK(MappingSpec().kind() == MappingSpec::Kind::rings);
  CHECK(MappingSpec::parse("rings").kind() == MappingSpec::Kind::rings);
  CHECK(MappingSpec::parse("linear").kind() == MappingSpec::Kind::linear);
  const MappingSpec spec = MappingSpec::parse("model=core+x;batch=y");
  CHECK(spec.kind() == MappingSpec::Kind::axes);
  REQUIRE(spec.assignment().size() == 2);
  CHECK(spec.assignment()[0].first == "model");
  CHECK(spec.assignment()[0].second == std::vector<std::string>{"core", "x"});
  CHECK(spec.assignment()[1].second == std::vector<std::string>{"y"});
  for (const std::string text : {"rings", "linear", "model=core+x;batch=y"}) {
    CHECK(MappingSpec::parse(text).to_string() == text);
  }
}

TEST_CASE("malformed mapping specs are input errors naming the rule") {
  CHECK_THROWS_WITH(MappingSpec::parse("ring"),
                    Catch::StartsWith("'ring' is not a mesh mapping (did you mean 'rings'?); valid: rings"));
  CHECK_THROWS_WITH(
      MappingSpec::parse("model=;batch=y"),
      Catch::StartsWith("mesh mapping 'model=;batch=y': rule 'model=' is not mesh-dim=axis+axis"));
  CHECK_THROWS_WITH(MappingSpec::parse("model=core+x=y"),
                    Catch::StartsWith("mesh mapping 'model=core+x=y': rule 'model=core+x=y' is not"));
  CHECK_THROWS_WITH(MappingSpec::parse("model=core+x;batch=x"),
                    "mesh mapping 'model=core+x;batch=x': physical axis 'x' is used twice (again in rule "
                    "'batch=x'); each axis may belong to one mesh dimension");
  CHECK_THROWS_WITH(
      MappingSpec::parse("model=core;model=x"),
      "mesh mapping 'model=core;model=x': mesh dimension 'model' is assigned twice (rule 'model=x')");
}

TEST_CASE("an explicit assignment of the rings' axes places every processor as rings does") {
  const auto topology = topo::preset("tpu-v2-pod");
  const MeshShape mesh = MeshShape::parse("batch:16;model:32");
  const MeshMapping rings(mesh, topology);
  const MeshMapping axes(mesh, topology, MappingSpec::parse("model=core+x;batch=y"));
  CHECK(axes.factored());
  CHECK(axes.note() == rings.note());
  for (int p = 0; p < 512; ++p) CHECK(axes.rank_of(p) == rings.rank_of(p));
}

TEST_CASE("an explicit assignment follows the axes in the order given") {
  const auto topology = topo::preset("tpu-v2-pod");
  const MeshMapping mapping(MeshShape::parse("batch:16;model:32"), topology,
                            MappingSpec::parse("model=x+core;batch=y"));
  CHECK(mapping.note() == "model = x+core, batch = y");
  // x varies fastest along model: processors 0 and 1 (model 0 and 1) are on neighbouring chips, same core.
  const auto a = topo::coord_of(topology, mapping.rank_of(0));
  const auto b = topo::coord_of(topology, mapping.rank_of(1));
  CHECK(a.core == b.core);
  CHECK(std::abs(a.chip[0] - b.chip[0]) == 1);
  std::vector<bool> seen(512, false);
  for (int p = 0; p < 512; ++p) {
    CHECK_FALSE(seen[mapping.rank_of(p)]);
    seen[mapping.rank_of(p)] = true;
    CHECK(mapping.processor_of(mapping.rank_of(p)) == p);
  }
}

TEST_CASE("the linear mapping puts processor i on rank i even where rings exist") {
  const MeshMapping mapping(MeshShape::parse("batch:16;model:32"), topo::preset("tpu-v2-pod"),
                            MappingSpec::linear());
  CHECK_FALSE(mapping.factored());
  CHECK(mapping.note().rfind("linear: processor i is rank i", 0) == 0);
  for (int p = 0; p < 512; ++p) CHECK(mapping.rank_of(p) == p);
}

TEST_CASE("explicit assignments are checked against the mesh and the topology") {
  const auto topology = topo::preset("tpu-v2-pod");
  const MeshShape mesh = MeshShape::parse("batch:16;model:32");
  auto error = [&](const std::string& text) {
    try {
      MeshMapping(mesh, topology, MappingSpec::parse(text));
    } catch (const tpusim::InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error("model=core+x") ==
        "mesh mapping 'model=core+x': mesh dimension 'batch' (size 16) is not assigned; give every mesh "
        "dimension its physical axes (the axes of tpu-v2-pod and their sizes: core 2, x 16, y 16)");
  CHECK(error("model=core+y;batch=x+rack") ==
        "mesh mapping 'model=core+y;batch=x+rack': rule 'batch=x+rack': unknown axis 'rack' for topology "
        "'tpu-v2-pod'; "
        "valid axes are core, x, y");
  CHECK(
      error("model=x;batch=core+y") ==
      "mesh mapping 'model=x;batch=core+y': rule 'model=x' gives mesh dimension 'model' of size 32 physical "
      "axes of 16 cores (x 16); the axis sizes must multiply to the dimension's size");
  CHECK(error("modle=core+x;batch=y") ==
        "mesh mapping 'modle=core+x;batch=y': rule 'modle=core+x' names mesh dimension 'modle', but mesh "
        "batch:16;model:32 has no such dimension (did you mean 'model'?); its dimensions are batch, model");
}

namespace {

// Whether two cores are one step apart on torus:XxYxZ with twists given as (dimension, along, shift): on one
// chip, or over one link, written here from the twisted torus's definition (the + neighbour of the last chip
// of a row wraps to the first, `shift` further along `along`).
bool one_step_apart(const topo::Topology& topology, topo::Rank a, topo::Rank b,
                    const std::vector<std::array<int, 3>>& twists) {
  const auto ca = topo::coord_of(topology, a).chip, cb = topo::coord_of(topology, b).chip;
  if (ca == cb) return true;
  const auto& dims = topology.chip_dims();
  auto plus = [&](std::vector<int> c, int d) {
    if (++c[d] < dims[d]) return c;
    c[d] = 0;
    for (const auto& [dimension, along, shift] : twists) {
      if (dimension == d) c[along] = (c[along] + shift) % dims[along];
    }
    return c;
  };
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (dims[d] > 1 && (plus(ca, d) == cb || plus(cb, d) == ca)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("on a twisted torus rings order each dimension's axes so that every group is a physical ring") {
  // tpu-v4-4x4x8-twisted: x and y wrap 4 chips further along z, so x or y as the slowest axis of a walk
  // closes it 3 hops away; model = core+x+y (what the untwisted slice gets) would not be a ring.
  const auto topology = topo::preset("tpu-v4-4x4x8-twisted");
  const std::vector<std::array<int, 3>> twists = {{0, 2, 4}, {1, 2, 4}};
  auto rings_of = [&](const MeshMapping& mapping, int m) {
    for (const auto& group : mapping.groups({m})) {
      for (int i = 0; i < group.size(); ++i) {
        if (!one_step_apart(topology, group.ranks[i], group.ranks[(i + 1) % group.size()], twists))
          return false;
      }
    }
    return true;
  };
  // Shapes with an assignment of whole axes where every dimension is a ring: x and y each share a dimension
  // with an untwisted axis (core or z) that their walk can end on.
  for (const char* shape :
       {"batch:8;model:32", "batch:32;model:8", "batch:2;model:128", "batch:128;model:2"}) {
    const MeshMapping mapping(MeshShape::parse(shape), topology);
    REQUIRE(mapping.factored());
    INFO(shape << ": " << mapping.note());
    for (int m = 0; m < mapping.mesh().rank(); ++m) CHECK(rings_of(mapping, m));
  }
  // 16 x 16 leaves x and y together (core and z make the other 16): that walk cannot close, the other does.
  const MeshMapping square(MeshShape::parse("batch:16;model:16"), topology);
  INFO(square.note());
  CHECK(rings_of(square, 0) != rings_of(square, 1));
  CHECK(MeshMapping(MeshShape::parse("batch:8;model:32"), topology).note() == "model = x+y+core, batch = z");
  // The same slice untwisted keeps the cores fastest.
  CHECK(MeshMapping(MeshShape::parse("batch:8;model:32"), topo::preset("tpu-v4-4x4x8")).note() ==
        "model = core+x+y, batch = z");
}
