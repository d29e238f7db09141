// The built graphs against the closed forms of model_formulas.hpp: parameters of every preset, and the matmul
// FLOPs the engine counts after lowering, for every model kind.
#include "workloads/models/model_formulas.hpp"

#include <catch2/catch.hpp>
#include <memory>

#include "mesh_tf/execution.hpp"
#include "mesh_tf/optimizer.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/flop_accounting.hpp"
#include "workloads/models/model_builder.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

std::int64_t graph_parameters(const mtf::Graph& graph) {
  std::int64_t total = 0;
  for (const auto& variable : graph.variables()) total += variable.shape().num_elements();
  return total;
}

// Lowers the training step of a config without an interconnect (collectives take no time) and returns the
// counted matmul FLOPs of the whole mesh.
double counted_matmul_flops(const RunConfig& config) {
  mtf::Graph graph(1);
  const BuiltModel model = build_model(graph, config.model);
  mtf::Optimizer::sgd(0.1).minimize(graph, model.loss);
  mtf::ExecutionOptions options;
  options.numerics = false;
  mtf::Executor executor(graph, config.mesh.shape, config.mesh.layout, nullptr, options);
  const FlopBreakdown flops = flop_breakdown(graph, executor.counters());
  CHECK(flops.other_flops_per_core > 0);
  CHECK(flops.matmul_flops_per_core + flops.other_flops_per_core == executor.counters().flops_per_core);
  return flops.matmul_flops_per_core * config.mesh.num_cores();
}

RunConfig small_config(const std::string& model_yaml, const std::string& topology, const std::string& mesh) {
  return parse_run_config("hardware: {topology: " + topology + "}\nmesh: {shape: \"" + mesh +
                              "\"}\nmodel:\n" + model_yaml + "training: {optimizer: sgd}\n",
                          "test.yaml");
}

const std::string kLm =
    "  {kind: transformer_lm, layers: 2, d_model: 16, d_ff: 32, heads: 4, d_kv: 8, vocab: 32, batch: 4, "
    "length: 8,"
    " activation_dtype: f32}\n";
const std::string kEncDec =
    "  {kind: encoder_decoder, encoder_layers: 2, decoder_layers: 1, d_model: 16, d_ff: 32, heads: 4, d_kv: "
    "8,"
    " vocab: 32, batch: 4, length: 8}\n";
const std::string kMoe =
    "  {kind: moe_transformer, layers: 1, d_model: 16, d_ff: 32, heads: 2, d_kv: 8, vocab: 32, experts: 8,"
    " capacity_factor: 1.5, batch: 8, length: 8}\n";
const std::string kBert =
    "  {kind: bert, layers: 2, d_model: 16, d_ff: 32, heads: 4, d_kv: 8, vocab: 32, batch: 8, length: 8,"
    " predictions: 3}\n";
const std::string kMlp = "  {kind: mlp, layers: 3, d_model: 16, d_ff: 32, batch: 8}\n";
const std::string kResNet =
    "  {kind: resnet, stage_blocks: [2, 1, 1], width: 4, image_size: 32, image_channels: 3, classes: 5, "
    "batch: "
    "8}\n";
const std::string kUNet =
    "  {kind: unet, levels: 3, width: 4, image_size: 16, image_channels: 2, classes: 3, batch: 4}\n";

RunConfig with_layout(const std::string& model_yaml, const std::string& topology, const std::string& mesh,
                      const std::string& layout) {
  return parse_run_config("hardware: {topology: " + topology + "}\nmesh: {shape: \"" + mesh +
                              "\", layout: \"" + layout + "\"}\nmodel:\n" + model_yaml +
                              "training: {optimizer: sgd}\n",
                          "test.yaml");
}

}  // namespace

TEST_CASE("every preset's graph has the parameters of the closed form") {
  for (const auto& name : preset_names()) {
    INFO(name);
    const RunConfig config = load_preset(name);
    mtf::Graph graph(1);
    build_model(graph, config.model);
    CHECK(graph_parameters(graph) == parameter_count(config.model));
  }
}

TEST_CASE("the closed form of the LM's FLOPs by hand for a tiny model") {
  const RunConfig config = small_config(kLm, "torus-4x4", "batch:4;model:4");
  // T = 32 tokens, d 16, f 32, h 4, k 8, V 32, b 4, l 8, L 2:
  // vocab terms 4TVd + 6TdV = 10 * 32 * 32 * 16 = 163840
  // attention per layer 8Tdhk + 4bl^2hk = 8*32*16*32 + 4*4*64*32 = 131072 + 32768 = 163840
  // FFN per layer 4Tdf = 4*32*16*32 = 65536;  layers: 2 * 3 * (163840 + 65536) = 1376256
  CHECK(training_flops_per_step(config.model) == 163840.0 + 1376256.0);
}

TEST_CASE("the engine's matmul FLOPs of the LM equal the closed form") {
  const RunConfig config = small_config(kLm, "torus-4x4", "batch:4;model:4");
  CHECK(counted_matmul_flops(config) == training_flops_per_step(config.model));
}

TEST_CASE("the engine's matmul FLOPs of the encoder-decoder equal the closed form") {
  const RunConfig config = small_config(kEncDec, "torus-4x4", "batch:4;model:4");
  CHECK(counted_matmul_flops(config) == training_flops_per_step(config.model));
}

TEST_CASE("the engine's matmul FLOPs of the MoE Transformer equal the closed form") {
  // One mesh axis, so that every einsum is split (the dispatch is otherwise replicated over `model`).
  const RunConfig config = small_config(kMoe, "ring-8", "batch:8");
  CHECK(config.mesh.layout_text() == "batch:batch;experts:batch");
  CHECK(expert_capacity(config.model) == 2);  // ceil(1.5 * 8 / 8)
  CHECK(counted_matmul_flops(config) == training_flops_per_step(config.model));
}

TEST_CASE("the engine's matmul FLOPs of BERT equal the closed form") {
  const RunConfig config = small_config(kBert, "ring-8", "batch:8");
  // T = 64 tokens, d 16, f 32, h 4, k 8, V 32, b 8, l 8, P 3, L 2, two token types:
  //   embeddings 4TVd = 131072, token types 8Td = 8192
  //   layers 2 * 3 * (8Tdhk + 4bl^2hk + 4Tdf) = 6 * (262144 + 65536 + 131072) = 2752512
  //   masked LM: gather 4bPld = 12288, transform 6bPd^2 = 36864, logits 6bPVd = 73728
  //   pooler 6bd^2 = 12288, next sentence 12bd = 1536
  const double replicated = 8192 + 12288 + 36864 + 12288 + 1536;  // no dimension split over `model`
  CHECK(training_flops_per_step(config.model) == 131072 + 2752512 + 73728 + replicated);
  CHECK(counted_matmul_flops(config) == training_flops_per_step(config.model));
  // With a model axis, the products without vocab, heads or d_ff run on each of its 4 cores.
  const RunConfig model_axis = small_config(kBert, "torus-4x4", "batch:4;model:4");
  CHECK(counted_matmul_flops(model_axis) == training_flops_per_step(model_axis.model) + 3 * replicated);
  // Picking the masked positions and the first token are products over length, so length may be split.
  const RunConfig split = with_layout(kBert, "ring-8", "batch:4;model:2", "batch:batch;length:model");
  CHECK(counted_matmul_flops(split) >= training_flops_per_step(split.model));
}

TEST_CASE("BERT-Large's parameters by hand: 335,141,888 in the encoder and pooler, 336,226,108 in all") {
  // MLPerf v0.7's BERT-Large (bert_config.json of google-research/bert's BERT-Large, uncased).
  const RunConfig config = small_config(
      "  {kind: bert, layers: 24, d_model: 1024, d_ff: 4096, heads: 16, d_kv: 64, vocab: 30522, batch: 8,"
      " length: 512, predictions: 76}\n",
      "ring-8", "batch:8");
  const std::int64_t embeddings = 30522 * 1024 + 2 * 1024 + 512 * 1024 + 2 * 1024;  // + layer norm
  CHECK(embeddings == 31782912);
  const std::int64_t attention = 4 * (1024 * 1024 + 1024);           // q, k, v, o with biases
  const std::int64_t ffn = 1024 * 4096 + 4096 + 4096 * 1024 + 1024;  // with biases
  const std::int64_t layer = attention + ffn + 2 * 2 * 1024;         // two layer norms, scale and bias
  CHECK(layer == 12596224);
  const std::int64_t pooler = 1024 * 1024 + 1024;
  // Hugging Face's BertModel("bert-large-uncased") has this many: the encoder and its pooler.
  CHECK(embeddings + 24 * layer + pooler == 335141888);
  const std::int64_t masked_lm = 1024 * 1024 + 1024 + 2 * 1024 + 30522;  // transform, layer norm, output bias
  const std::int64_t next_sentence = 1024 * 2 + 2;
  CHECK(parameter_count(config.model) == embeddings + 24 * layer + pooler + masked_lm + next_sentence);
  CHECK(parameter_count(config.model) == 336226108);
  mtf::Graph graph(1);
  build_model(graph, config.model);
  CHECK(graph_parameters(graph) == 336226108);
  // The matrices alone, the one vocab matrix tied: 24 * 12582912 + 31254528.
  CHECK(paper_parameter_count(config.model) == 333244416);
}

TEST_CASE("the engine's matmul FLOPs of the MLP equal the closed form") {
  const RunConfig config = small_config(kMlp, "ring-8", "batch:4;model:2");
  CHECK(training_flops_per_step(config.model) == 12.0 * 3 * 8 * 16 * 32 - 2.0 * 8 * 16 * 32);
  CHECK(counted_matmul_flops(config) == training_flops_per_step(config.model));
}

TEST_CASE("ResNet-50's parameters are torchvision's count, 25,557,032") {
  const RunConfig config =
      small_config("  {kind: resnet, image_size: 224, classes: 1000, batch: 8}\n", "ring-8", "batch:8");
  CHECK(config.model.stage_blocks == std::vector<int>{3, 4, 6, 3});
  CHECK(parameter_count(config.model) == 25557032);
  mtf::Graph graph(1);
  build_model(graph, config.model);
  CHECK(graph_parameters(graph) == 25557032);
}

TEST_CASE("the closed form of the U-Net's FLOPs by hand for a two-level model") {
  const RunConfig config = small_config(
      "  {kind: unet, levels: 2, width: 2, image_size: 4, image_channels: 1, classes: 2, batch: 1}\n",
      "ring-8", "model:8");
  // N 1, 16 positions at the top and 4 below; F = 2 N P k^2 c_in c_out, times 3 (2 for the first):
  //   down 0: 3x3 1->2: 2 * 2*16*9*2 = 1152;  3x3 2->2: 3 * 2*16*9*4 = 3456
  //   down 1: 3x3 2->4 at 4 positions: 3 * 2*4*9*8 = 1728;  3x3 4->4: 3 * 2*4*9*16 = 3456
  //   up 0: 2x2 stride 2, 4->2, 4 small positions: 3 * 2*4*4*8 = 768;  3x3 4->2: 3 * 2*16*9*8 = 6912;
  //         3x3 2->2: 3456;  logits 1x1 2->2: 3 * 2*16*4 = 384
  CHECK(training_flops_per_step(config.model) == 1152 + 3456 + 1728 + 3456 + 768 + 6912 + 3456 + 384);
  // Parameters: 18+4, 36+4, 72+8, 144+8 down; 32 up; 72+4, 36+4 after it; 4+2 logits.
  CHECK(parameter_count(config.model) == 22 + 40 + 80 + 152 + 32 + 76 + 40 + 6);
}

TEST_CASE("the engine's matmul FLOPs of the ResNet equal the closed form") {
  const RunConfig data = small_config(kResNet, "ring-8", "batch:8");
  CHECK(counted_matmul_flops(data) == training_flops_per_step(data.model));
  // Split by rows, each core's windows are its share of the output positions (halo rows cost traffic, not
  // FLOPs); only the classifier after the global average pool, which has no rows, runs on both cores of a
  // rows pair: 6 x batch 8 x 64 channels x 5 classes once more.
  const RunConfig rows = with_layout(kResNet, "ring-8", "batch:4;rows:2", "batch:batch;h:rows");
  CHECK(counted_matmul_flops(rows) == training_flops_per_step(rows.model) + 6 * 8 * 64 * 5);
}

TEST_CASE("the engine's matmul FLOPs of the U-Net equal the closed form") {
  const RunConfig data = small_config(kUNet, "torus:2x2", "batch:4");
  CHECK(counted_matmul_flops(data) == training_flops_per_step(data.model));
  const RunConfig tiles = with_layout(kUNet, "torus:2x2", "rows:2;cols:2", "h:rows;w:cols");
  CHECK(counted_matmul_flops(tiles) == training_flops_per_step(tiles.model));
}
