#pragma once
// Internal to mesh_tf: what each op family file (mesh_tf/ops/*.cpp) gives the op table (op_table.cpp), and
// the argument checks the builders share. The public builders are declared in graph.hpp.
#include <string>
#include <vector>

#include "mesh_tf/graph.hpp"
#include "mesh_tf/op_table.hpp"

namespace tpusim::mtf {

// The graph all `tensors` belong to; InputError naming the op if they are empty handles or mix graphs.
Graph& same_graph(const std::vector<Tensor>& tensors, const std::string& op_name);
// InputError unless `output` keeps only dims of x (einsum.cpp; reduce_sum and reduce_max).
void check_reduction(const Tensor& x, const Shape& output, const std::string& name);

// reshape.cpp: a reshape lowered as weight sharding's (ReshapeAttributes), and whether an op is one.
Tensor weight_sharding_reshape(const Tensor& x, const Shape& output, const std::string& name);
bool is_weight_sharding_rename(const OpNode& op);

namespace ops {

// sources.cpp: input, variable, fill, random_mask, causal_mask
void lower_source(Lowerer& lowerer, const OpNode& op);
// einsum.cpp
void lower_einsum(Lowerer& lowerer, const OpNode& op);
void einsum_gradient(GradientRequest& request);
// binary.cpp
void lower_binary(Lowerer& lowerer, const OpNode& op);
void binary_gradient(GradientRequest& request);
bool binary_passes_gradient(const OpNode& op);
const char* binary_name(BinaryOp op);
// unary.cpp: unary and scalar_affine
void lower_unary(Lowerer& lowerer, const OpNode& op);
void unary_gradient(GradientRequest& request);
bool unary_passes_gradient(const OpNode& op);
const char* unary_name(UnaryOp op);
void affine_gradient(GradientRequest& request);
// reduce_max.cpp
void lower_reduce(Lowerer& lowerer, const OpNode& op);
void reduce_gradient(GradientRequest& request);
// reshape.cpp
void lower_reshape(Lowerer& lowerer, const OpNode& op);
void reshape_gradient(GradientRequest& request);
// shift.cpp
void lower_shift(Lowerer& lowerer, const OpNode& op);
void shift_gradient(GradientRequest& request);
// concat_slice_pad.cpp
void lower_concat(Lowerer& lowerer, const OpNode& op);
void concat_gradient(GradientRequest& request);
void lower_slice(Lowerer& lowerer, const OpNode& op);
void slice_gradient(GradientRequest& request);
void lower_pad(Lowerer& lowerer, const OpNode& op);
void pad_gradient(GradientRequest& request);
// cumsum.cpp
void lower_cumsum(Lowerer& lowerer, const OpNode& op);
void cumsum_gradient(GradientRequest& request);
// indices.cpp: one_hot, argmax_one_hot
void lower_one_hot(Lowerer& lowerer, const OpNode& op);
void lower_argmax_one_hot(Lowerer& lowerer, const OpNode& op);
// stop_gradient.cpp
void lower_stop_gradient(Lowerer& lowerer, const OpNode& op);
// assign.cpp
void lower_assign(Lowerer& lowerer, const OpNode& op);
// conv.cpp: conv, conv_transpose, conv_filter_gradient
void lower_conv(Lowerer& lowerer, const OpNode& op);
void conv_gradient(GradientRequest& request);
void lower_conv_transpose(Lowerer& lowerer, const OpNode& op);
void conv_transpose_gradient(GradientRequest& request);
void lower_conv_filter_gradient(Lowerer& lowerer, const OpNode& op);
void conv_filter_gradient_gradient(GradientRequest& request);
// rotary.cpp
void lower_rotate_half(Lowerer& lowerer, const OpNode& op);
void rotate_half_gradient(GradientRequest& request);
// pool.cpp: pool, pool_gradient
void lower_pool(Lowerer& lowerer, const OpNode& op);
void pool_gradient(GradientRequest& request);
void lower_pool_gradient(Lowerer& lowerer, const OpNode& op);

}  // namespace ops
}  // namespace tpusim::mtf
