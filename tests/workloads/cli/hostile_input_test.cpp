// The hostile inputs of issue 7, end to end through the built binary: each row is a command line (and the
// files it reads), the exit status it must give and the exact phrases of its one line on stderr. A failing
// row also leaves stdout empty and the working directory as the row's setup made it: nothing half-written.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <map>

#include "cli_runner.hpp"
#include "input_rows.hpp"

using tpusim::cli_test::check_row;
using tpusim::cli_test::kConfig;
using tpusim::cli_test::replaced;
using tpusim::cli_test::with_hardware;
using tpusim::cli_test::Privileges;
using tpusim::cli_test::Row;
using tpusim::cli_test::Scratch;

namespace {

std::string replaced_in(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string nested_blocks(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += std::string(2 * i, ' ') + "level" + std::to_string(i) + ":\n";
  return text;
}

std::string sweep_of_points(int seeds) {
  std::string text = "base: tiny-mlp\nvary:\n  training.seed: [0";
  for (int i = 1; i < seeds; ++i) text += ", " + std::to_string(i);
  return text + "]\n  training.learning_rate: [0.1, 0.2, 0.3, 0.4]\n";
}

// A small LM on ring-8 with two pipeline stages over the mesh axis `stage` (lines 14 and 16 are the
// pipeline's keys, line 5 the layout).
std::string pipelined_lm(const std::string& stages, const std::string& layout = "stage:stage;batch:batch") {
  return "name: pipe\nhardware:\n  topology: ring-8\nmesh:\n  layout: " + layout +
         "\n  shape: stage:2;batch:4\nmodel:\n  kind: transformer_lm\n  layers: 4\n  d_model: 16\n  d_ff: "
         "32\n"
         "  heads: 2\n  d_kv: 8\n  vocab: 32\n  batch: 16\n  length: 8\ntraining:\n  pipeline_stages: " +
         stages + "\n  microbatches: 2\n";
}

std::vector<Row> table() {
  const std::string in_range = " (the most steps a run may have)";
  return {
      // Aborts: figures that passed validation and then hit the scheduler's 1e300 placeholder.
      {"a FLOP rate of 1e-300",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("peak_flops_per_core: 1e-300")}},
       2,
       {"tpusim: error: c.yaml:4: hardware.peak_flops_per_core: '1e-300' is not a plausible FLOP rate: "
        "expected 1 MFLOP/s to 1 EFLOP/s"}},
      {"an HBM bandwidth of 1e-300",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("hbm_bandwidth_per_core: 1e-300")}},
       2,
       {"c.yaml:4: hardware.hbm_bandwidth_per_core: '1e-300' is not a plausible bandwidth: expected 1 kB/s "
        "to 1 PB/s"}},
      {"a link bandwidth of 1e-300",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("inter_chip_bandwidth: 1e-300")}},
       2,
       {"c.yaml:4: hardware.inter_chip_bandwidth: '1e-300' is not a plausible bandwidth: expected 1 kB/s to "
        "1 PB/s"}},
      {"a link latency of 1e300",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", with_hardware("inter_chip_latency: 1e300")}},
       2,
       {"c.yaml:4: hardware.inter_chip_latency: '1e300' is not a plausible latency: expected 0, or 1 ps to 1 s"}},
      {"a latency of 1e300 in a topology spec",
       {"collective", "--topology", "ring:8,lat=1e300"},
       {},
       2,
       {"tpusim: error: topology 'ring:8,lat=1e300': lat: '1e300' is not a plausible latency: expected 0, "
        "or 1 ps to 1 s"}},
      {"a latency of 1e300 in a config's topology spec",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("topology: ring-8", "topology: ring:8,lat=1e300")}},
       2,
       {"c.yaml:3: hardware.topology: topology 'ring:8,lat=1e300': lat: '1e300' is not a plausible latency"}},
      {"a multislice spec with an unclosed slice",
       {"collective", "--topology", "multislice:2x(ring:8"},
       {},
       2,
       {"tpusim: error: topology 'multislice:2x(ring:8': '(ring:8' opens a parenthesis it does not close at "
        "its end; expected multislice:<N>x<preset> or multislice:<N>x(<kind>:<dims>)"}},
      {"a DCN latency of 1e300 in a config's multislice topology",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("topology: ring-8", "topology: multislice:2x(ring:4),dcn_lat=1e300")}},
       2,
       {"c.yaml:3: hardware.topology: topology 'multislice:2x(ring:4),dcn_lat=1e300': dcn_lat: '1e300' is "
        "not a plausible latency"}},
      // Overflow: sizes cut to 32 bits or multiplied past an int.
      {"a model batch of 1e14",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("batch: 32", "batch: 100000000000000")}},
       2,
       {"c.yaml:6: model: its tensor [batch, length, d_model] would have 1.6e+15 elements, more than the "
        "2.81e+14 a tensor may have on the whole pod"}},
      {"a mesh axis of 1e11",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("batch:4;model:2", "batch:100000000000;model:32")}},
       2,
       {"c.yaml:5: mesh.shape: mesh 'batch:100000000000;model:32': mesh batch:100000000000;model:32 has "
        "3200000000000 processors; at most 16777216 are supported"}},
      {"a mesh axis past 32 bits",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("batch:4;model:2", "a:4294967304")}},
       2,
       {"c.yaml:5: mesh.shape: mesh 'a:4294967304': mesh a:4294967304 has 4294967304 processors"}},
      {"two mesh sizes left to the topology",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("batch:4;model:2", "batch:*;model:*")}},
       2,
       {"c.yaml:5: mesh.shape: mesh 'batch:*;model:*': only one size may be '*' (the cores the other sizes "
        "leave); 2 are"}},
      {"a size per mesh axis that overflows",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("d_ff: 64", "d_ff: {per: model, value: 9223372036854775807}")}},
       2,
       {"c.yaml:10: model.d_ff.value: 9223372036854775807 per unit x 2 units is too large"}},
      {"an image model whose images overflow a tensor",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  kind: mlp\n  layers: 2\n  d_model: 16\n  d_ff: 64\n",
                            "  kind: unet\n  width: 8\n  classes: 2\n  image_size: 4611686018427387904\n")}},
       2,
       {"c.yaml:6: model: its tensor [batch, h, w, image_channels] would have"}},
      {"a ResNet of a million blocks",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  kind: mlp\n  layers: 2\n  d_model: 16\n  d_ff: 64\n",
                            "  kind: resnet\n  stage_blocks: [1000000]\n  classes: 2\n  image_size: 64\n")}},
       2,
       {"c.yaml:8: model.stage_blocks: more than the 1000 blocks a model may have"}},
      {"a BERT masking more positions than its sequences have",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  kind: mlp\n  layers: 2\n  d_model: 16\n  d_ff: 64\n",
                            "  kind: bert\n  layers: 2\n  d_model: 16\n  d_ff: 64\n  heads: 2\n  d_kv: 8\n"
                            "  vocab: 32\n  length: 8\n  predictions: 100000000000\n")}},
       2,
       {"c.yaml:15: model.predictions: 100000000000 masked positions do not fit in a sequence of length 8"}},
      {"a dropout rate of 1",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  kind: mlp\n  layers: 2\n  d_model: 16\n  d_ff: 64\n",
                            "  kind: transformer_lm\n  layers: 2\n  d_model: 16\n  d_ff: 64\n  heads: 2\n"
                            "  d_kv: 8\n  vocab: 32\n  length: 8\n  dropout: 1\n")}},
       2,
       {"model.dropout: must be 0, or from 2^-24 (6e-8) to less than 1"}},
      {"an all-reduce combining threshold that is a word",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  topology: ring-8\n", "  topology: ring-8\n  allreduce_combine: lots\n")}},
       2,
       {"c.yaml:4: hardware.allreduce_combine: 'lots' is neither none nor a size: expected none, or a size "
        "such as "
        "30MiB"}},
      {"batch-norm groups that do not divide the batch",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  kind: mlp\n  layers: 2\n  d_model: 16\n  d_ff: 64\n",
                            "  kind: resnet\n  stage_blocks: [1]\n  classes: 2\n  image_size: 64\n"
                            "  batch_norm_span: 7\n")}},
       2,
       {"c.yaml:11: model.batch_norm_span: 7 does not divide the batch of 32 images into groups"}},
      {"weight sharding not a mode",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", kConfig + "  weight_sharding: fsdp\n"}},
       2,
       {"training.weight_sharding: 'fsdp' is not valid; valid values are none, update, full"}},
      {"pipeline stages of a model that cannot be pipelined",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", kConfig + "  pipeline_stages: 2\n"}},
       2,
       // The kinds that can are listed from the model-kind table; transformer_lm is one of them.
       {"c.yaml:14: training.pipeline_stages: a mlp cannot be pipelined; the kinds that can are ",
        "transformer_lm"}},
      {"pipeline stages that do not divide the layers",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", pipelined_lm("3")}},
       2,
       {"c.yaml:18: training.pipeline_stages: 3 stages do not divide the 4 layers evenly"}},
      {"microbatches that do not divide the batch",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced_in(pipelined_lm("2"), "microbatches: 2", "microbatches: 3")}},
       2,
       {"c.yaml:19: training.microbatches: 3 microbatches do not divide the batch of 16 evenly"}},
      {"pipeline stages without a stage axis",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", pipelined_lm("2", "batch:batch")}},
       2,
       {"c.yaml:5: mesh.layout: 2 pipeline stages need a layout rule stage:<mesh axis> naming the mesh axis "
        "the stages run along (mesh stage:2;batch:4)"}},
      {"pipeline stages the stage axis does not divide",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml",
         replaced_in(replaced_in(pipelined_lm("2"), "layers: 4", "layers: 6"), "stages: 2", "stages: 3")}},
       2,
       {"c.yaml:", "3 does not split evenly over mesh axis 'stage' of size 2 (layout rule stage:stage)"}},
      {"a pipeline schedule that does not exist",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", pipelined_lm("2") + "  pipeline_schedule: 2f2b\n"}},
       2,
       {"c.yaml:20: training.pipeline_schedule: '2f2b' is not valid (did you mean '1f1b'?); valid values are "
        "gpipe, 1f1b"}},
      {"the old weight-update sharding key",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", kConfig + "  weight_update_sharding: true\n"}},
       2,
       {"training.weight_update_sharding", "weight_sharding"}},
      // Hangs: limits that the command line bypassed, or work that cannot finish.
      {"--steps past the config's limit",
       {"run", "c.yaml", "--no-files", "--steps", "1000000"},
       {{"c.yaml", kConfig}},
       2,
       {"tpusim: error: --steps: 1000000 is out of range: expected 1 to 100000" + in_range}},
      {"a collective on 4M cores",
       {"collective", "--topology", "torus:256x256,cores=64"},
       {},
       2,
       {"tpusim: error: topology 'torus:256x256,cores=64' has 4194304 cores on 65536 chips; simulating it "
        "would need about 12.6 GiB of memory (9 KiB per chip and 3 KiB per core), more than the 4 GiB tpusim "
        "allows: use at most about 1201493 cores"}},
      {"a 2000-point sweep is checked (in linear time)",
       {"sweep", "big.yaml", "--dry-run"},
       {{"big.yaml", sweep_of_points(500)}},
       0,
       {"sweep big: 2000 points of big.yaml (base tiny-mlp): 2000 run\n"}},
      // Silently ignored: the first of two keys won.
      {"a key given twice",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", replaced("  kind: mlp\n", "  kind: mlp\n  kind: transformer_lm\n")}},
       2,
       {"tpusim: error: c.yaml:8: model.kind: given twice, at lines 7 and 8; keep one"}},
      {"a section given twice",
       {"run", "c.yaml", "--no-files"},
       {{"c.yaml", kConfig + "hardware:\n  topology: torus-4x4\n"}},
       2,
       {"tpusim: error: c.yaml:14: hardware: given twice, at lines 2 and 14; keep one"}},
      {"a key given twice in a sweep's vary",
       {"sweep", "s.yaml", "--dry-run"},
       {{"s.yaml", "base: tiny-mlp\nvary:\n  training.seed: [1]\n  training.seed: [2]\n"}},
       2,
       {"tpusim: error: s.yaml:4: vary.training.seed: given twice, at lines 3 and 4; keep one"}},
      // Files that are not configs.
      {"an endless file",
       {"run", "/dev/zero"},
       {},
       2,
       {"tpusim: error: /dev/zero: the config file is larger than 16 MiB, the most tpusim reads"}},
      {"a folder as the config",
       {"run", "folder"},
       {},
       2,
       {"tpusim: error: folder: is a folder, not a config file"},
       [](const std::filesystem::path& work) { std::filesystem::create_directory(work / "folder"); }},
      {"a folder as the sweep file",
       {"sweep", "folder"},
       {},
       2,
       {"tpusim: error: folder: is a folder, not a sweep file"},
       [](const std::filesystem::path& work) { std::filesystem::create_directory(work / "folder"); }},
      {"blocks nested too deeply",
       {"run", "deep.yaml"},
       {{"deep.yaml", nested_blocks(100)}},
       2,
       {"tpusim: error: deep.yaml:65: YAML nested too deeply: more than 64 levels of maps and lists"}},
      {"flow lists nested deeper than the YAML parser goes",
       {"run", "deep.yaml"},
       {{"deep.yaml", "x: " + std::string(10000, '[') + std::string(10000, ']') + "\n"}},
       2,
       {"tpusim: error: deep.yaml:1: YAML nested too deeply: more than 64 levels of maps and lists"}},
      // Found by fuzzing (tests/fuzz/regressions): the product of a mesh's sizes overflowed 64 bits.
      {"a mesh whose size overflows 64 bits",
       {"bench", "engine", "--mesh", "a:4444444444444444432;b:6666666"},
       {},
       2,
       {"tpusim: error: mesh 'a:4444444444444444432;b:6666666': "}},
      // Readable ranges instead of CLI11's 300-digit ones.
      {"--steps abc",
       {"run", "--steps", "abc"},
       {},
       2,
       {"tpusim: error: --steps: 'abc' is not a whole number: expected 1 to 100000" + in_range +
        " (see 'tpusim run --help')"}},
      {"--steps 0",
       {"run", "--steps", "0"},
       {},
       2,
       {"tpusim: error: --steps: 0 is out of range: expected 1 to 100000" + in_range}},
      {"--trace-chips -1",
       {"run", "--trace-chips", "-1"},
       {},
       2,
       {"tpusim: error: --trace-chips: '-1' is not a choice of chips: expected classes (one track set per "
        "class of chips), all, or how many of the first chips to write (1 to 65536; 0 is all)"}},
      // The environment: a results folder that cannot be written, found before simulating (stdout is
      // empty: no report was printed, so nothing was simulated).
      {"a read-only results folder",
       {"run", "c.yaml", "--output", "results/hostile"},
       {{"c.yaml", kConfig}},
       3,
       {"tpusim: error: cannot write results folder 'results/hostile': Permission denied"},
       [](const std::filesystem::path& work) {
         std::filesystem::create_directory(work / "results");
         ::chmod((work / "results").c_str(), 0555);
       },
       Privileges::unprivileged},
      {"a read-only results folder of a sweep",
       {"sweep", "s.yaml", "--output", "results/sweep"},
       {{"s.yaml", "base: tiny-mlp\nvary:\n  training.seed: [1, 2]\n"}},
       3,
       {"tpusim: error: cannot write results folder 'results/sweep': Permission denied"},
       [](const std::filesystem::path& work) {
         std::filesystem::create_directory(work / "results");
         ::chmod((work / "results").c_str(), 0555);
       },
       Privileges::unprivileged},
      {"a trace that cannot be written",
       {"collective", "--topology", "ring-8", "--trace", "/sys/tpusim-test/trace.json"},
       {},
       3,
       {"tpusim: error: cannot write in folder '/sys': "}},
      {"an output folder holding other files",
       {"run", "c.yaml", "--output", "mine"},
       {{"c.yaml", kConfig}, {"mine/notes.txt", "keep me\n"}},
       2,
       {"tpusim: error: results folder 'mine' holds 'notes.txt', which is not a result of tpusim; results "
        "replace the whole folder, so give an output folder of its own (new, empty or an earlier result)"}},
  };
}

}  // namespace

TEST_CASE("cli: every hostile input of issue 7 is one clear line with its exit status, and leaves no files") {
  for (const auto& row : table()) {
    SECTION(row.what) { check_row(row); }
  }
}
