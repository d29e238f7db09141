// Dropout in the Transformer kinds and weight-update sharding, end to end: where the masks go (counted by
// hand from transformer_layers.hpp), full numerics still training with them, and sharded updates training
// the same model to the same losses. Each run_training creates the process's one Simulator, so runs go to
// child processes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "topologies/support/child_process.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim::workloads;

namespace {

// Random masks among the graph's ops: all of them, and those under "<scope>".
int masks(const RunConfig& config, const std::string& scope = "") {
  const TrainingProgram program(config);
  int count = 0;
  for (const auto& op : program.graph.ops()) {
    if (op.kind == tpusim::mtf::OpKind::random_mask && op.name.rfind(scope, 0) == 0) ++count;
  }
  return count;
}

RunConfig with_dropout(const std::string& preset, double rate) {
  RunConfig config = load_preset(preset);
  config.model.dropout = rate;
  return config;
}

std::vector<double> losses_in_child(const RunConfig& config) {
  const std::string text = tpusim::run_in_child([&] {
                             std::string out;
                             char buffer[64];
                             for (const auto& step : run_training(config).steps) {
                               std::snprintf(buffer, sizeof buffer, "%a\n", step.loss.value());
                               out += buffer;
                             }
                             return out;
                           }).output;
  std::vector<double> losses;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = text.find('\n', at);
    losses.push_back(std::strtod(text.substr(at, end - at).c_str(), nullptr));
    at = end + 1;
  }
  return losses;
}

}  // namespace

TEST_CASE("dropout: the masks each Transformer kind builds, counted by hand") {
  // Decoder layer: attention weights, the attention's output, the ffn's relu hidden and its output: 4; plus
  // the embedded input. tiny-lm has 2 layers: 9.
  CHECK(masks(with_dropout("tiny-lm", 0)) == 0);
  CHECK(masks(with_dropout("tiny-lm", 0.1), "layer_0/") == 4);
  CHECK(masks(with_dropout("tiny-lm", 0.1), "layer_1/") == 4);
  CHECK(masks(with_dropout("tiny-lm", 0.1)) == 2 * 4 + 1);
  // BERT (modeling.py): attention probabilities, the attention's output and the ffn's output (no dropout on
  // the GELU hidden), and the embeddings.
  const RunConfig bert = with_dropout("tiny-bert", 0.1);
  CHECK(masks(bert, "layer_0/") == 3);
  CHECK(masks(bert) == 3 * bert.model.layers + 1);
  // Encoder-decoder: encoder layers 4, decoder layers 6 (cross-attention's weights and output), two embeds.
  const RunConfig translation = with_dropout("tiny-translation", 0.1);
  CHECK(masks(translation, "encoder/layer_0/") == 4);
  CHECK(masks(translation, "decoder/layer_0/") == 6);
  CHECK(masks(translation) == 4 * translation.model.layers + 6 * translation.model.decoder_layers + 2);
  // MoE: the expert hidden in place of the ffn hidden.
  CHECK(masks(with_dropout("tiny-moe", 0.1), "layer_0/") == 4);
}

TEST_CASE("dropout: the tiny LM still trains in full numerics") {
  const auto losses = losses_in_child(with_dropout("tiny-lm", 0.1));
  REQUIRE(losses.size() == 12);
  INFO("first loss " << losses.front() << ", last " << losses.back());
  CHECK(losses.back() < 0.8 * losses.front());
}

TEST_CASE("weight-update sharding: the tiny LM trains to the same losses") {
  RunConfig sharded = load_preset("tiny-lm");
  sharded.training.weight_update_sharding = true;
  const TrainingProgram program(sharded);
  CHECK(program.layout.to_string().find("_shard:batch") != std::string::npos);
  const auto plain_losses = losses_in_child(load_preset("tiny-lm"));
  const auto sharded_losses = losses_in_child(sharded);
  REQUIRE(plain_losses.size() == sharded_losses.size());
  for (std::size_t i = 0; i < plain_losses.size(); ++i) {
    INFO("step " << i);
    CHECK(sharded_losses[i] == Approx(plain_losses[i]).epsilon(1e-4));
  }
}
