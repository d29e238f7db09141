#pragma once
// The vector unit of a TPU core: what runs elementwise ops, reductions and transcendental functions. On TPU
// v2 and v3 it is 128 lanes of 8 sublanes, each sublane with 2 ALUs working on 32-bit values: 2048 vector
// operations per cycle per core, at the core's clock (Norrie and Patil, "Google's Training Chips Revealed:
// TPUv2 and TPUv3", Hot Chips 32, 2020; Norrie et al., IEEE Micro 2021). The Cloud TPU v4 page and Jouppi et
// al., ISCA 2023 keep the 128-lane vector unit beside four matrix units; its sublanes and ALUs are not
// published, so the v4 preset keeps v3's, a documented assumption. On v5 each lane and sublane has 4 ALUs
// (Austin et al., "How to Scale Your Model", 2025, TPU chapter): 4096 operations per cycle per TensorCore,
// 8192 on v5p's megacore of two; v6e's ALUs are not published and its preset assumes v5's, a user setting
// (hardware.vector_alus_per_sublane).
//
// A transcendental function (exp, log, tanh, sqrt, rsqrt, the logistic: the ops XLA's HloCostAnalysis counts
// as transcendentals rather than FLOPs) costs `transcendental_ops` vector operations per element. No public
// source gives that cost for these cores, so it is a user setting (hardware.transcendental_vector_ops),
// 1 by default: a transcendental counted as one vector operation, like any other.
namespace tpusim::mtf {

class VectorUnit {
 public:
  // Throws InputError unless 1 <= lanes, sublanes, alus_per_sublane <= 4096 and 1 <= transcendental_ops
  // <= 1000.
  VectorUnit(int lanes, int sublanes, int alus_per_sublane, double transcendental_ops = 1);
  int lanes() const { return lanes_; }
  int sublanes() const { return sublanes_; }
  int alus_per_sublane() const { return alus_per_sublane_; }
  double transcendental_ops() const { return transcendental_ops_; }
  double ops_per_cycle() const { return 1.0 * lanes_ * sublanes_ * alus_per_sublane_; }
  // Vector operations of `flops` operations, `transcendentals` of which are transcendental functions.
  double vector_ops(double flops, double transcendentals) const {
    return flops + transcendentals * (transcendental_ops_ - 1);
  }

 private:
  int lanes_;
  int sublanes_;
  int alus_per_sublane_;
  double transcendental_ops_;
};

}  // namespace tpusim::mtf
