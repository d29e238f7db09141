// tpusim bench conv: the engine's local convolutions (im2col or col2im plus sgemm, forward and both
// gradients) against plain OpenBLAS sgemm on the same matrix shapes, for ResNet-50's layer shapes or one
// given layer. Figures are printed, never judged.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "workloads/bench/conv_bench.hpp"
#include "workloads/cli/command.hpp"
#include "workloads/cli/number_option.hpp"
#include "workloads/report/report_context.hpp"

namespace tpusim::cli {

void add_bench_conv(CLI::App& bench) {
  auto* conv = bench.add_subcommand(
      "conv", "Local convolution throughput (forward and gradients) vs plain OpenBLAS sgemm");
  static workloads::ConvLayerShape layer;
  static bool one_layer = false, json = false;
  static int steps = 3;
  // Every buffer of one layer is held in memory: these bounds keep each under a few GiB.
  add_whole_number_option(conv, "--batch", layer.batch, 1, 1024, "One layer: batch (with --size etc.)");
  add_whole_number_option(conv, "--size", layer.size, 1, 4096, "One layer: image height and width");
  add_whole_number_option(conv, "--in-channels", layer.in_channels, 1, 4096, "One layer: input channels");
  add_whole_number_option(conv, "--out-channels", layer.out_channels, 1, 4096, "One layer: output channels");
  add_whole_number_option(conv, "--window", layer.window, 1, 15, "One layer: window height and width");
  add_whole_number_option(conv, "--stride", layer.stride, 1, 8, "One layer: stride");
  conv->add_flag("--layer", one_layer, "Run the one layer the options describe instead of ResNet-50's");
  add_whole_number_option(conv, "--steps", steps, 1, 1000, "Timed steps per layer")->capture_default_str();
  conv->add_flag("--json", json, "Print one JSON object");
  conv->callback([] {
    const auto layers =
        one_layer ? std::vector<workloads::ConvLayerShape>{layer} : workloads::default_conv_layers();
    nlohmann::json rows = nlohmann::json::array();
    if (!json) {
      std::cout << fmt::format(
          "local convolutions on one core (forward, input and filter gradients), best of {} "
          "steps\n",
          steps);
      std::cout << fmt::format("  {:<36} {:>12} {:>12} {:>10}\n", "layer", "engine GF/s", "sgemm GF/s",
                               "efficiency");
    }
    double engine_s = 0, blas_s = 0;
    for (const auto& shape : layers) {
      const auto e = workloads::measure_conv_efficiency(shape, steps);
      engine_s += e.engine_s;
      blas_s += e.blas_s;
      if (json) {
        rows.push_back({{"layer", shape.to_string()},
                        {"batch", shape.batch},
                        {"size", shape.size},
                        {"in_channels", shape.in_channels},
                        {"out_channels", shape.out_channels},
                        {"window", shape.window},
                        {"stride", shape.stride},
                        {"flops", e.flops},
                        {"engine_s", e.engine_s},
                        {"blas_s", e.blas_s},
                        {"engine_gflops", e.engine_gflops()},
                        {"blas_gflops", e.blas_gflops()},
                        {"efficiency", e.efficiency()}});
      } else {
        std::cout << fmt::format("  {:<36} {:>12.1f} {:>12.1f} {:>9.1f}%\n", shape.to_string(),
                                 e.engine_gflops(), e.blas_gflops(), 100 * e.efficiency());
      }
    }
    if (json) {
      const nlohmann::json out = {{"layers", rows}, {"efficiency", blas_s / engine_s}};
      const nlohmann::json inputs = {{"steps", steps},
                                     {"layer", one_layer ? layer.to_string() : "resnet-50"}};
      std::cout << workloads::dump_report(workloads::with_report_context(out, workloads::format::kBenchConv,
                                                                         "bench conv", inputs))
                << "\n";
      return;
    }
    std::cout << fmt::format("  all layers: {:.1f}% of plain sgemm's speed ({:.3f} s against {:.3f} s)\n",
                             100 * blas_s / engine_s, engine_s, blas_s);
  });
}

}  // namespace tpusim::cli
