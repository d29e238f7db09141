// Config keys and values in the words of a figure's reader: no dotted keys, no YAML braces, no
// batch:16;model:32 in a legend or on an axis.
#include "workloads/report/plot_words.hpp"

#include <catch2/catch.hpp>

using namespace tpusim::workloads;

TEST_CASE("plot words: keys read as what they are") {
  CHECK(key_in_words("mesh.shape") == "mesh");
  CHECK(key_in_words("mesh.mapping") == "mapping");
  CHECK(key_in_words("model.image_size") == "image size");
  CHECK(key_in_words("hardware.matrix_unit") == "matrix unit");
  CHECK(key_in_words("model.d_ff") == "d_ff");
  CHECK(key_in_words("collective.bytes") == "message size");
  CHECK(key_in_words("plain") == "plain");
}

TEST_CASE("plot words: a size per processor of a mesh axis is no YAML map") {
  CHECK(value_in_words("model.batch", "{per: batch, value: 16}") == "16 per batch core");
  CHECK(setting_in_words("model.batch", "{per: batch, value: 16}") == "16 per batch core");
  CHECK(value_in_words("hardware.collectives", "{batch: auto, model: ring_all}") ==
        "batch auto, model ring all");
  for (const char* value : {"{per: model, value: 8}", "{batch: auto, model: auto}"}) {
    INFO(value);
    CHECK(value_in_words("model.heads", value).find_first_of("{}") == std::string::npos);
  }
}

TEST_CASE("plot words: meshes, mappings, layouts, topologies and faults in words") {
  CHECK(value_in_words("mesh.shape", "batch:16;model:32") == "batch 16 × model 32");
  CHECK(value_in_words("mesh.shape", "batch:*;model:1") == "batch all × model 1");
  CHECK(value_in_words("mesh.shape", "from_mapping") == "mesh from the mapping");
  CHECK(value_in_words("mesh.mapping", "model=core+x;batch=y") == "model on core+x, batch on y");
  CHECK(value_in_words("mesh.mapping", "rings") == "rings");
  CHECK(value_in_words("mesh.layout", "batch:batch;h:rows") == "batch on batch, h on rows");
  CHECK(value_in_words("hardware.topology", "torus:4x8,twist_x=y+4") == "4x8 torus, twisted");
  CHECK(value_in_words("hardware.topology", "torus:2x2,cores=2") == "2x2 torus, 2 cores per chip");
  CHECK(value_in_words("hardware.topology", "tpu-v2-pod") == "tpu-v2-pod");
  CHECK(value_in_words("hardware.faults", "") == "no faults");
  CHECK(value_in_words("hardware.faults", "random:1:7") == "1 random link down (seed 7)");
  CHECK(value_in_words("hardware.faults", "random:3:7") == "3 random links down (seed 7)");
  CHECK(value_in_words("hardware.matrix_unit", "peak_rate") == "peak rate");
  CHECK(value_in_words("hardware.vector_memory", "16MiB") == "16MiB");
}

TEST_CASE("plot words: a setting names its key unless its value says what it is") {
  CHECK(setting_in_words("model.batch", "128") == "batch 128");
  CHECK(setting_in_words("hardware.fusion", "none") == "fusion none");
  CHECK(setting_in_words("mesh.mapping", "rings") == "mapping rings");
  CHECK(setting_in_words("mesh.mapping", "model=core+x;batch=y") == "model on core+x, batch on y");
  CHECK(setting_in_words("mesh.shape", "batch:4;model:128") == "batch 4 × model 128");
  CHECK(setting_in_words("hardware.topology", "torus:8x8x8") == "8x8x8 torus");
}
