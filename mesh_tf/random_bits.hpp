#pragma once
// What a dropout mask costs the vector unit: XLA on TPU makes random bits with ThreeFry-2x32 (Salmon et al.,
// "Parallel Random Numbers: As Easy as 1, 2, 3", SC 2011); tensorflow/compiler/tf2xla/kernels/
// stateless_random_ops.cc keeps Philox for CPU and GPU only. Counted from xla/client/lib/prng.cc's
// ThreeFry2x32, per 2 x 32-bit output (one u32 vector operation per line; the key schedule ks[0..2] is
// scalar):
//   x0 += ks0, x1 += ks1                                                  2
//   20 rounds of x0 += x1; x1 = (x1 << r) | (x1 >> (32 - r)); x1 ^= x0    20 x 5 = 100
//   a key injection after every 4 rounds: x0 += ks[i]; x1 += ks[j] + i   5 x 3 = 15 (as prng.cc writes it)
// = 117 operations per pair of 32-bit values, 58.5 per value. Then ConvertRandomBitsToUniformFloatingPoint
// (prng.cc): bits >> 9, | the exponent of 1.0, (a free bitcast), - 1.0, then * (max - min) + min: 5. Then
// dropout's compare with the keep probability and select of 1/keep or 0: 2. The multiply of x by the mask is
// the mul op's own FLOP.
//
// Whether TPUs also have a hardware random-number source that XLA uses for stateful RNG ops is not public:
// this models the stateless path, the one the sources above document.
namespace tpusim::mtf {

constexpr double kThreeFryOpsPerPair = 2 + 20 * 5 + 5 * 3;        // 117
constexpr double kThreeFryOpsPerValue = kThreeFryOpsPerPair / 2;  // 58.5
constexpr double kUniformConversionOps = 5;                       // shift, or, sub, mul, add
constexpr double kMaskSelectOps = 2;                              // compare, select
constexpr double kRandomMaskVectorOps =                           // 65.5 per mask element
    kThreeFryOpsPerValue + kUniformConversionOps + kMaskSelectOps;

}  // namespace tpusim::mtf
