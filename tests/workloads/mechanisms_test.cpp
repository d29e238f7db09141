// Dropout in the Transformer kinds and weight sharding, end to end: where the masks go (counted by hand from
// transformer_layers.hpp), full numerics still training with them, sharded updates and fully sharded weights
// training the same model to the same losses, and lm-s5's memory per core under full sharding by hand. Each
// run_training creates the process's one Simulator, so runs go to child processes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "topologies/support/child_process.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/model_formulas.hpp"
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

RunConfig with_sharding(const std::string& preset, tpusim::mtf::WeightShardingMode mode) {
  RunConfig config = load_preset(preset);
  config.training.weight_sharding = mode;
  return config;
}

// The memory report of a lowered (not simulated) run: parameters, gradients, optimizer state, peak live.
std::vector<std::uint64_t> memory_in_child(const RunConfig& config) {
  const std::string text =
      tpusim::run_in_child([&] {
        RunOptions options;
        options.lower_only = true;
        const MemoryReport m = run_training(config, options).memory;
        return std::to_string(m.parameter_bytes) + " " + std::to_string(m.gradient_bytes) + " " +
               std::to_string(m.optimizer_state_bytes) + " " + std::to_string(m.total_bytes);
      }).output;
  std::vector<std::uint64_t> out;
  std::size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    std::size_t used = 0;
    out.push_back(std::stoull(text.substr(at), &used));
    at += used;
  }
  return out;
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

namespace {

// The tiny LM sharded as `mode` says: its layout shards over batch, and it trains to the plain run's losses.
void check_trains_as_plain(tpusim::mtf::WeightShardingMode mode) {
  const RunConfig sharded = with_sharding("tiny-lm", mode);
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

}  // namespace

TEST_CASE("weight-update sharding: the tiny LM trains to the same losses") {
  check_trains_as_plain(tpusim::mtf::WeightShardingMode::update);
}

TEST_CASE("full weight sharding: the tiny LM trains to the same losses") {
  check_trains_as_plain(tpusim::mtf::WeightShardingMode::full);
}

TEST_CASE("full weight sharding: lm-s5's parameters and gradients per core are 1/16 of its plain run's") {
  using tpusim::mtf::WeightShardingMode;
  const RunConfig config = load_preset("lm-s5");
  REQUIRE(config.mesh.shape_text() == "batch:16;model:32");
  const auto plain = memory_in_child(config);
  const auto update = memory_in_child(with_sharding("lm-s5", WeightShardingMode::update));
  const auto full = memory_in_child(with_sharding("lm-s5", WeightShardingMode::full));
  // By hand: every fp32 weight is split 32 ways over model (vocab, d_ff or heads) except the positional
  // embedding [length, d_model] and the 2 layer norms per layer plus the final one [d_model], which stay
  // whole; every variable has d_model (1024) unsplit, which the batch axis (16) divides, so full sharding
  // stores 1/16 of each.
  const std::int64_t P = parameter_count(config.model);
  const std::int64_t whole = (config.model.length + 2 * config.model.layers + 1) * config.model.d_model;
  const std::uint64_t plain_bytes = static_cast<std::uint64_t>((P - whole) * 4 / 32 + whole * 4);
  CHECK(plain[0] == plain_bytes);
  CHECK(update[0] == plain_bytes);
  CHECK(full[0] * 16 == plain_bytes);
  CHECK(full[1] * 16 == plain[1]);  // gradients
  CHECK(full[2] == update[2]);      // Adafactor's slots: sharded as weight-update sharding shards them
  CHECK(full[2] < plain[2]);
  CHECK(full[3] < update[3]);  // peak live
  CHECK(update[3] < plain[3]);
}
