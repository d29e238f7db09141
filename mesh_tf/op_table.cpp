#include "mesh_tf/op_table.hpp"

#include <array>

#include "mesh_tf/ops/op_families.hpp"

namespace tpusim::mtf {
namespace {

using namespace ops;
using R = FusionRole;

constexpr std::array<OpRow, kOpKindCount> kOps = {{
    {OpKind::input, "input", lower_source, nullptr, nullptr, R::none},
    {OpKind::variable, "variable", lower_source, nullptr, nullptr, R::none},
    {OpKind::fill, "fill", lower_source, nullptr, nullptr, R::elementwise},
    {OpKind::random_mask, "random_mask", lower_source, nullptr, nullptr, R::elementwise},
    {OpKind::einsum, "einsum", lower_einsum, einsum_gradient, nullptr, R::none},
    {OpKind::binary, "binary", lower_binary, binary_gradient, binary_passes_gradient, R::elementwise},
    {OpKind::unary, "unary", lower_unary, unary_gradient, unary_passes_gradient, R::elementwise},
    {OpKind::scalar_affine, "scalar_affine", lower_unary, affine_gradient, nullptr, R::elementwise},
    {OpKind::reduce, "reduce", lower_reduce, reduce_gradient, nullptr, R::reduction},
    {OpKind::reshape, "reshape", lower_reshape, reshape_gradient, nullptr, R::none},
    {OpKind::shift, "shift", lower_shift, shift_gradient, nullptr, R::none},
    {OpKind::concat, "concat", lower_concat, concat_gradient, nullptr, R::none},
    {OpKind::slice, "slice", lower_slice, slice_gradient, nullptr, R::none},
    {OpKind::pad, "pad", lower_pad, pad_gradient, nullptr, R::none},
    {OpKind::cumsum, "cumsum", lower_cumsum, cumsum_gradient, nullptr, R::none},
    {OpKind::one_hot, "one_hot", lower_one_hot, nullptr, nullptr, R::elementwise},
    {OpKind::argmax_one_hot, "argmax_one_hot", lower_argmax_one_hot, nullptr, nullptr, R::none},
    {OpKind::stop_gradient, "stop_gradient", lower_stop_gradient, nullptr, nullptr, R::none},
    {OpKind::assign, "assign", lower_assign, nullptr, nullptr, R::none},
    {OpKind::conv, "conv", lower_conv, conv_gradient, nullptr, R::contraction},
    {OpKind::conv_transpose, "conv_transpose", lower_conv_transpose, conv_transpose_gradient, nullptr,
     R::contraction},
    {OpKind::conv_filter_gradient, "conv_filter_gradient", lower_conv_filter_gradient,
     conv_filter_gradient_gradient, nullptr, R::contraction},
    {OpKind::pool, "pool", lower_pool, pool_gradient, nullptr, R::reduction},
    {OpKind::pool_gradient, "pool_gradient", lower_pool_gradient, nullptr, nullptr, R::none},
    {OpKind::causal_mask, "causal_mask", lower_source, nullptr, nullptr, R::elementwise},
    {OpKind::rotate_half, "rotate_half", lower_rotate_half, rotate_half_gradient, nullptr, R::elementwise},
}};

constexpr bool op_rows_in_enum_order() {
  for (int i = 0; i < kOpKindCount; ++i) {
    if (static_cast<int>(kOps[i].kind) != i) return false;
  }
  return true;
}
static_assert(op_rows_in_enum_order(), "one row per OpKind, in enum order");

}  // namespace

const OpRow& op_row(OpKind kind) { return kOps[static_cast<int>(kind)]; }

bool passes_gradient(const OpNode& op) {
  const OpRow& row = op_row(op.kind);
  if (row.gradient == nullptr) return false;
  return row.passes_gradient == nullptr || row.passes_gradient(op);
}

const char* to_string(OpKind kind) { return op_row(kind).name; }
const char* to_string(BinaryOp op) { return binary_name(op); }
const char* to_string(UnaryOp op) { return unary_name(op); }

}  // namespace tpusim::mtf
