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

TEST_CASE("BERT examples: distinct masked positions, their labels, segments and next-sentence labels") {
  ModelConfig m = lm();
  m.kind = ModelKind::bert;
  m.batch = 16;
  m.length = 9;
  m.vocab = 11;
  m.predictions = 4;
  const auto ids = synthetic_values(m, InputRole::masked_token_ids, 3, 1);
  const auto types = synthetic_values(m, InputRole::token_type_ids, 3, 1);
  const auto positions = synthetic_values(m, InputRole::masked_positions, 3, 1);
  const auto labels = synthetic_values(m, InputRole::masked_label_ids, 3, 1);
  const auto next = synthetic_values(m, InputRole::next_sentence_labels, 3, 1);
  REQUIRE(ids.size() == 16 * 9);
  REQUIRE(types.size() == 16 * 9);
  REQUIRE(positions.size() == 16 * 4);
  REQUIRE(labels.size() == 16 * 4);
  REQUIRE(next.size() == 16);
  int random_pairs = 0;
  for (int b = 0; b < 16; ++b) {
    INFO("sequence " << b);
    // Segment A is the first (length + 1) / 2 = 5 tokens.
    for (int i = 0; i < 9; ++i) CHECK(types[b * 9 + i] == (i < 5 ? 0.0f : 1.0f));
    std::vector<float> tokens(ids.begin() + b * 9, ids.begin() + (b + 1) * 9);
    for (int j = 0; j < 4; ++j) {
      const int at = int(positions[b * 4 + j]);
      REQUIRE(at >= 0);
      REQUIRE(at < 9);
      if (j > 0) CHECK(at > int(positions[b * 4 + j - 1]));  // distinct and ascending
      CHECK(tokens[at] == 0.0f);                             // [MASK]
      tokens[at] = labels[b * 4 + j];
    }
    // Unmasked, each segment repeats one token; B repeats A's exactly when the label says it is the next.
    for (int i = 1; i < 9; ++i) CHECK(tokens[i] == tokens[i < 5 ? 0 : 5]);
    CHECK((tokens[5] == tokens[0]) == (next[b] == 0.0f));
    random_pairs += next[b] == 1.0f ? 1 : 0;
  }
  CHECK(random_pairs > 0);
  CHECK(random_pairs < 16);
}
