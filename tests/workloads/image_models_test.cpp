// The image models' configs (model kinds resnet and unet): their keys, the sizes their halvings need, the
// layouts their dimensions allow, and the synthetic images and labels they train on.
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <string>

#include "tests/topologies/support/input_error_of.hpp"
#include "workloads/config/config_parser.hpp"
#include "workloads/config/preset_catalog.hpp"
#include "workloads/models/model_kinds.hpp"
#include "workloads/synthetic_data.hpp"

using namespace tpusim::workloads;

namespace {

// A valid U-Net config; tests replace one line to break it. Line numbers matter: the errors quote them.
const std::string kImageUNet =
    "name: images\n"                  // 1
    "hardware:\n"                     // 2
    "  topology: ring-8\n"            // 3
    "mesh:\n"                         // 4
    "  shape: batch:4;rows:2\n"       // 5
    "  layout: batch:batch;h:rows\n"  // 6
    "model:\n"                        // 7
    "  kind: unet\n"                  // 8
    "  levels: 3\n"                   // 9
    "  width: 8\n"                    // 10
    "  image_size: 32\n"              // 11
    "  classes: 2\n"                  // 12
    "  batch: 8\n"                    // 13
    "training:\n"                     // 14
    "  numerics: timing\n";           // 15

std::string image_replace(const std::string& text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.substr(0, at) + to + text.substr(at + from.size());
}

// The same on a ResNet: its blocks line replaces line 9 (with "", the default blocks move every later line up
// by one) and the images are split by the batch only, since ResNet-50 halves 32 rows down to 1.
std::string resnet(const std::string& blocks_line) {
  return image_replace(image_replace(image_replace(kImageUNet, "  kind: unet\n", "  kind: resnet\n"),
                                     "  levels: 3\n", blocks_line),
                       "  layout: batch:batch;h:rows\n", "  layout: batch:batch\n");
}

std::string image_error_of(const std::string& yaml) {
  return tpusim::test_support::input_error_of([&] { parse_run_config(yaml, "img.yaml"); });
}

}  // namespace

TEST_CASE("image models: a valid config gets the kind's defaults and reports images") {
  const RunConfig unet = parse_run_config(kImageUNet, "img.yaml");
  CHECK(unet.model.image_channels == 1);
  CHECK(unet.model.activation_dtype == tpusim::mtf::DType::bfloat16);
  CHECK(example_unit(unet.model.kind) == "images");
  CHECK(tokens_per_step(unet.model) == 8);
  CHECK_FALSE(trains_on_sequences(unet.model.kind));
  const RunConfig net = parse_run_config(resnet(""), "img.yaml");
  CHECK(net.model.stage_blocks == std::vector<int>{3, 4, 6, 3});
  CHECK(net.model.image_channels == 3);
  CHECK(net.model.width == 8);
  CHECK(describe_model(net.model) ==
        "ResNet-50 (blocks 3,4,6,3), width 8, 2 classes, batch 8 x 32x32x3 images, bf16 activations");
}

TEST_CASE("image models: stage_blocks is a list or comma-separated text, and reads back as text") {
  const RunConfig list = parse_run_config(resnet("  stage_blocks: [2, 1]\n"), "img.yaml");
  const RunConfig text = parse_run_config(resnet("  stage_blocks: \"2, 1\"\n"), "img.yaml");
  CHECK(list.model.stage_blocks == std::vector<int>{2, 1});
  CHECK(text.model.stage_blocks == list.model.stage_blocks);
  CHECK(image_error_of(resnet("  stage_blocks: [3, 0]\n")) ==
        "img.yaml:9: model.stage_blocks[1]: 0 must be at least 1");
  CHECK(image_error_of(resnet("  stage_blocks: \"2, x\"\n")) ==
        "img.yaml:9: model.stage_blocks: 'x' is not a whole number");
  CHECK(image_error_of(resnet("  stage_blocks: \"1,1,1,1,1,1,1,1,1\"\n")) ==
        "img.yaml:9: model.stage_blocks: 9 stages is more than the 8 a ResNet may have");
  CHECK(image_error_of(resnet("  stage_blocks: [600, 600]\n")) ==
        "img.yaml:9: model.stage_blocks: more than the 1000 blocks a model may have");
}

TEST_CASE("image models: an unknown key or a bad size is one line at its key") {
  CHECK(
      image_error_of(image_replace(kImageUNet, "  image_size: 32\n", "  image_sise: 32\n")) ==
      "img.yaml:11: model.image_sise: unknown key (did you mean 'image_size'?); valid keys are kind, levels, "
      "width, image_size, image_channels, classes, batch, activation_dtype");
  CHECK(image_error_of(image_replace(kImageUNet, "  image_size: 32\n", "  image_size: -32\n")) ==
        "img.yaml:11: model.image_size: -32 must be at least 1");
  CHECK(image_error_of(image_replace(kImageUNet, "  levels: 3\n", "  levels: 17\n")) ==
        "img.yaml:9: model.levels: 17 levels is more than the 16 a U-Net may have");
  // A resnet key in a U-Net is an unknown key.
  CHECK(image_error_of(image_replace(kImageUNet, "  levels: 3\n", "  levels: 3\n  stage_blocks: [1]\n"))
            .rfind("img.yaml:10: model.stage_blocks: unknown key", 0) == 0);
  CHECK(image_error_of(image_replace(kImageUNet, "  image_size: 32\n", "  image_size: 16777216\n")) ==
        "img.yaml:7: model: its tensor [batch, h, w, image_channels] would have 2.25e+15 elements, more than "
        "the 2.81e+14 a tensor may have on the whole pod");
}

TEST_CASE("image models: an image size the model cannot halve enough times is reported at image_size") {
  CHECK(image_error_of(image_replace(kImageUNet, "  image_size: 32\n", "  image_size: 34\n")) ==
        "img.yaml:11: model.image_size: 34 is not a multiple of 4: the model halves the image 2 times (a 2x2 "
        "max "
        "pool down to each level below the top; levels 3)");
  CHECK(image_error_of(image_replace(resnet(""), "  image_size: 32\n", "  image_size: 100\n")) ==
        "img.yaml:10: model.image_size: 100 is not a multiple of 32: the model halves the image 5 times (the "
        "stem's stride-2 convolution and max pool, and a stride-2 block starting each stage after the first; "
        "stages 4)");
}

TEST_CASE("image models: a layout must split the smallest image and width evenly") {
  // 36 / 4 = 9 rows at the bottom level: not two equal tiles.
  CHECK(image_error_of(image_replace(kImageUNet, "  image_size: 32\n", "  image_size: 36\n")) ==
        "img.yaml:11: model.image_size: h is 9 at its smallest (image_size 36 / 4), which does not split "
        "evenly "
        "over mesh axis 'rows' of size 2 (layout rule h:rows)");
  CHECK(image_error_of(image_replace(image_replace(kImageUNet, "  width: 8\n", "  width: 9\n"), "h:rows",
                                     "filters:rows")) ==
        "img.yaml:10: model.width: filters is 9 at its smallest (width 9), which does not split evenly over "
        "mesh "
        "axis 'rows' of size 2 (layout rule filters:rows)");
  CHECK(image_error_of(image_replace(kImageUNet, "h:rows", "channels:rows")) ==
        "img.yaml:6: mesh.layout: channels is laid out on mesh axis 'rows', but the U-Net concatenates its "
        "skip "
        "connections along channels, which cannot be split");
  CHECK(image_error_of(image_replace(kImageUNet, "h:rows", "hh:rows"))
            .rfind("img.yaml:6: mesh.layout: a unet has no dimension 'hh' (did you mean 'h'?)", 0) == 0);
}

TEST_CASE("image models: full numerics of a large image model is refused") {
  CHECK(image_error_of(image_replace(image_replace(kImageUNet, "  numerics: timing\n", "  numerics: full\n"),
                                     "  image_size: 32\n", "  image_size: 4096\n"))
            .rfind("img.yaml:15: training.numerics: full numerics of this run would need about", 0) == 0);
}

TEST_CASE("synthetic images: a ResNet image's first channel is shifted by its class, and only that channel") {
  RunConfig config = parse_run_config(resnet("  stage_blocks: [1]\n"), "img.yaml");
  config.model.classes = 4;
  const auto images = synthetic_values(config.model, InputRole::class_images, 7, 2);
  const auto plain = synthetic_values(config.model, InputRole::images, 7, 2);
  const auto labels = synthetic_values(config.model, InputRole::image_labels, 7, 2);
  REQUIRE(labels.size() == 8);
  const std::int64_t pixels = 32 * 32;
  REQUIRE(images.size() == std::size_t(8 * pixels * 3));
  std::vector<int> seen(4, 0);
  for (std::int64_t b = 0; b < 8; ++b) {
    const int label = int(labels[b]);
    REQUIRE(label >= 0);
    REQUIRE(label < 4);
    ++seen[label];
    const double offset = 2.0 * (label + 0.5) / 4 - 1;
    for (std::int64_t p = 0; p < pixels; ++p) {
      const std::int64_t at = (b * pixels + p) * 3;
      CHECK(images[at] == Approx(plain[at] + offset).margin(1e-6));
      CHECK(images[at + 1] == plain[at + 1]);
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), 0) < 4);
  CHECK(synthetic_values(config.model, InputRole::image_labels, 8, 2) != labels);
}

TEST_CASE("synthetic images: a U-Net pixel's class is the sign of its neighbourhood's first channel") {
  RunConfig config = parse_run_config(
      image_replace(kImageUNet, "  classes: 2\n", "  classes: 2\n  image_channels: 2\n"), "img.yaml");
  const auto images = synthetic_values(config.model, InputRole::images, 3, 0);
  const auto labels = synthetic_values(config.model, InputRole::pixel_labels, 3, 0);
  const std::int64_t S = 32;
  REQUIRE(labels.size() == std::size_t(8 * S * S));
  const auto first = [&](std::int64_t b, std::int64_t y, std::int64_t x) {
    return images[((b * S + y) * S + x) * 2];
  };
  int ones = 0, mismatches = 0;
  for (std::int64_t b = 0; b < 8; ++b) {
    for (std::int64_t y = 0; y < S; ++y) {
      for (std::int64_t x = 0; x < S; ++x) {
        double sum = 0;
        for (std::int64_t dy = -1; dy <= 1; ++dy) {
          for (std::int64_t dx = -1; dx <= 1; ++dx) {
            if (y + dy >= 0 && y + dy < S && x + dx >= 0 && x + dx < S) sum += first(b, y + dy, x + dx);
          }
        }
        const float label = labels[(b * S + y) * S + x];
        mismatches += label != (sum > 0 ? 1.0f : 0.0f);
        ones += int(label);
      }
    }
  }
  CHECK(mismatches == 0);
  // About half of each class.
  CHECK(std::abs(ones - 8 * S * S / 2) < 8 * S * S / 10);
}
