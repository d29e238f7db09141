#include "workloads/synthetic_data.hpp"

#include <catch2/catch.hpp>

using namespace tpusim::workloads;

namespace {
ModelConfig lm() {
  ModelConfig m;
  m.kind = ModelKind::transformer_lm;
  m.batch = 3;
  m.length = 5;
  m.vocab = 7;
  m.d_model = 4;
  return m;
}
}  // namespace

TEST_CASE("LM targets are the inputs shifted by one token counting mod vocab") {
  const auto ids = synthetic_values(lm(), InputRole::token_ids, 1, 0);
  const auto next = synthetic_values(lm(), InputRole::next_token_ids, 1, 0);
  REQUIRE(ids.size() == 15);
  for (int b = 0; b < 3; ++b) {
    for (int i = 0; i < 5; ++i) {
      CHECK(next[b * 5 + i] == float((int(ids[b * 5 + i]) + 1) % 7));
      if (i > 0) CHECK(ids[b * 5 + i] == next[b * 5 + i - 1]);
    }
  }
}

TEST_CASE("synthetic data depends only on seed and step") {
  CHECK(synthetic_values(lm(), InputRole::source_ids, 5, 2) ==
        synthetic_values(lm(), InputRole::source_ids, 5, 2));
  CHECK(synthetic_values(lm(), InputRole::source_ids, 5, 2) !=
        synthetic_values(lm(), InputRole::source_ids, 5, 3));
  CHECK(synthetic_values(lm(), InputRole::source_ids, 5, 2) !=
        synthetic_values(lm(), InputRole::source_ids, 6, 2));
  CHECK(synthetic_random(1, 2, 3) == synthetic_random(1, 2, 3));
}

TEST_CASE("the decoder input is the source shifted right after token 0") {
  const auto source = synthetic_values(lm(), InputRole::source_ids, 1, 0);
  const auto decoder_in = synthetic_values(lm(), InputRole::decoder_in_ids, 1, 0);
  for (int b = 0; b < 3; ++b) {
    CHECK(decoder_in[b * 5] == 0.0f);
    for (int i = 1; i < 5; ++i) CHECK(decoder_in[b * 5 + i] == source[b * 5 + i - 1]);
  }
}

TEST_CASE("the causal mask lets a position see itself and the past only") {
  const auto mask = synthetic_values(lm(), InputRole::causal_mask, 1, 0);
  REQUIRE(mask.size() == 25);
  CHECK(mask[0 * 5 + 0] == 0.0f);
  CHECK(mask[2 * 5 + 1] == 0.0f);
  CHECK(mask[1 * 5 + 2] == -1e9f);
}

TEST_CASE("MLP features are standard normal in the large") {
  ModelConfig m;
  m.kind = ModelKind::mlp;
  m.batch = 100;
  m.d_model = 100;
  const auto x = synthetic_values(m, InputRole::features, 1, 0);
  double sum = 0, squares = 0;
  for (float v : x) {
    sum += v;
    squares += double(v) * v;
  }
  CHECK(std::abs(sum / x.size()) < 0.05);
  CHECK(std::abs(squares / x.size() - 1) < 0.05);
}
