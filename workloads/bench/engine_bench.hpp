#pragma once
// Figures of the engine's own cost on this machine (used by `tpusim bench engine`): how close the local
// matmuls of a numerics run come to plain OpenBLAS sgemm, and how long lowering plus timing-only simulation
// of a 512-core step takes. Wall-clock figures: printed by benchmarks, never asserted by tests.
#include <cstdint>
#include <string>

namespace tpusim::sim {
class Simulator;
}

namespace tpusim::workloads {

struct MatmulEfficiency {
  std::int64_t batch = 0, io = 0, hidden = 0;
  int cores = 1;  // data-parallel mesh all:cores (numerics, reference data exchange)
  int steps = 0;
  double engine_einsum_s = 0;  // wall time inside the engine's einsum kernels
  double engine_flops = 0;     // FLOPs those kernels executed
  double blas_s = 0;           // plain cblas_sgemm on the same local shapes and transposes
  double blas_flops = 0;
  double step_wall_s = 0;    // whole numerics steps (all ops, data exchange), per step
  double best_engine_s = 0;  // fastest step's einsum kernels
  double best_blas_s = 0;    // fastest round of the six plain sgemm products
  double engine_gflops() const { return engine_flops / engine_einsum_s / 1e9; }
  double blas_gflops() const { return blas_flops / blas_s / 1e9; }
  double efficiency() const { return engine_gflops() / blas_gflops(); }
  double best_efficiency() const { return best_blas_s / best_engine_s; }  // from the best rounds
};

// Two-layer training step (forward and backward, six matmuls) on the mesh all:cores with batch:all.
MatmulEfficiency measure_matmul_efficiency(std::int64_t batch, std::int64_t io, std::int64_t hidden,
                                           int cores, int steps);

struct LoweringTiming {
  std::string mesh, rules, mapping_note;
  double parameters = 0;
  double lowering_s = 0;     // graph -> lowered program (Executor construction)
  double first_step_s = 0;   // timing-only step, every distinct collective simulated
  double repeat_step_s = 0;  // a second step (memoised collective times)
  int collectives = 0;
  double simulated_step_s = 0;
  double simulated_comm_s = 0;
  double simulated_exposed_comm_s = 0;
};

// The two-layer example as a full training step (SGD) in timing-only mode on `simulator`'s topology.
LoweringTiming measure_lowering(sim::Simulator& simulator, std::int64_t batch, std::int64_t io,
                                std::int64_t hidden, const std::string& mesh, const std::string& rules);

}  // namespace tpusim::workloads
