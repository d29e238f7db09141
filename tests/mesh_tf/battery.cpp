#include "tests/mesh_tf/battery.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mesh_tf/autodiff.hpp"
#include "mesh_tf/random.hpp"

namespace tpusim::mtf::testing {
namespace {

void add_grads(TestProgram& p, const Tensor& loss) {
  p.fetches.insert(p.fetches.begin(), loss);
  const auto vars = p.graph->variables();
  std::vector<Tensor> wrt = vars;
  for (const auto& [input, values] : p.feeds) {
    if (input.name() == "x") wrt.push_back(input);  // the table's dx
  }
  for (const auto& g : gradients(loss, wrt)) p.fetches.push_back(g);
}

}  // namespace

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(scale * standard_normal(seed, i));
  return v;
}

std::vector<float> random_ids(std::size_t count, int n, std::uint64_t seed) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i)
    v[i] = static_cast<float>(std::min(n - 1, static_cast<int>(uniform01(seed, i) * n)));
  return v;
}

TestProgram two_layer_mlp(int batch_scale) {
  TestProgram p;
  p.name = "mlp";
  p.graph = std::make_unique<Graph>(7);
  Graph& g = *p.graph;
  const Dimension batch("batch", 8 * batch_scale), io("io", 16), hidden("hidden", 32);
  const Tensor x = g.input("x", {batch, io});
  const Tensor target = g.input("target", {batch, io});
  const Tensor w = g.variable("w", {io, hidden}, Initializer::normal(0.3f));
  const Tensor v = g.variable("v", {hidden, io}, Initializer::normal(0.3f));
  const Tensor h = relu(einsum({x, w}, Shape{batch, hidden}));
  const Tensor y = einsum({h, v}, Shape{batch, io}, "y");
  const Tensor loss = reduce_mean(square(sub(y, target)), Shape{}, "loss");
  p.feeds = {{x, random_values(batch.size * io.size, 1)}, {target, random_values(batch.size * io.size, 2)}};
  p.fetches = {y};
  add_grads(p, loss);
  p.layouts = {"batch:a",       "hidden:a",     "batch:a;hidden:b",
               "io:a;hidden:b", "batch:b;io:a", "batch:a;hidden:b;io:c"};
  return p;
}

TestProgram attention(int batch_scale) {
  TestProgram p;
  p.name = "attention";
  p.graph = std::make_unique<Graph>(11);
  Graph& g = *p.graph;
  const Dimension batch("batch", 2 * batch_scale), length("length", 8), memory("memory", 8),
      d_model("d_model", 16), heads("heads", 8), d_kv("d_kv", 8);
  const Tensor x = g.input("x", {batch, length, d_model});
  const Tensor wq = g.variable("wq", {d_model, heads, d_kv}, Initializer::normal(0.25f));
  const Tensor wk = g.variable("wk", {d_model, heads, d_kv}, Initializer::normal(0.25f));
  const Tensor wv = g.variable("wv", {d_model, heads, d_kv}, Initializer::normal(0.25f));
  const Tensor wo = g.variable("wo", {heads, d_kv, d_model}, Initializer::normal(0.25f));
  const Tensor q = einsum({x, wq}, Shape{batch, heads, length, d_kv});
  const Tensor xm = rename(x, "length", "memory");
  const Tensor k = einsum({xm, wk}, Shape{batch, heads, memory, d_kv});
  const Tensor v = einsum({xm, wv}, Shape{batch, heads, memory, d_kv});
  const Tensor logits = scale(einsum({q, k}, Shape{batch, heads, length, memory}), 1.0 / std::sqrt(8.0));
  const Tensor weights = softmax(logits, "memory");
  const Tensor attended = einsum({weights, v}, Shape{batch, heads, length, d_kv});
  const Tensor out = einsum({attended, wo}, Shape{batch, length, d_model}, "out");
  const Tensor target = g.input("target", {batch, length, d_model});
  const Tensor loss = reduce_mean(mul(out, target), Shape{}, "loss");
  p.feeds = {{x, random_values(batch.size * length.size * d_model.size, 3)},
             {target, random_values(batch.size * length.size * d_model.size, 4)}};
  p.fetches = {out};
  add_grads(p, loss);
  p.layouts = {"batch:a",          "heads:a",         "batch:a;heads:b",          "d_model:a;heads:b",
               "memory:a;batch:b", "d_kv:a;length:b", "batch:a;heads:b;d_model:c"};
  return p;
}

TestProgram split_vocab_softmax(int batch_scale) {
  TestProgram p;
  p.name = "softmax";
  p.graph = std::make_unique<Graph>(13);
  Graph& g = *p.graph;
  const Dimension batch("batch", 8 * batch_scale), d_model("d_model", 16), vocab("vocab", 32);
  const Tensor ids = g.input("ids", {batch});
  const Tensor labels_ids = g.input("labels", {batch});
  const Tensor embedding = g.variable("embedding", {vocab, d_model}, Initializer::normal(0.5f));
  const Tensor softmax_w = g.variable("softmax_w", {d_model, vocab}, Initializer::normal(0.5f));
  const Tensor x = gather(embedding, ids, "vocab", "embedded");
  const Tensor logits = einsum({x, softmax_w}, Shape{batch, vocab}, "logits");
  const Tensor labels = one_hot(labels_ids, vocab);
  const Tensor loss = reduce_mean(softmax_cross_entropy(logits, labels, "vocab"), Shape{}, "loss");
  p.feeds = {{ids, random_ids(batch.size, 32, 5)}, {labels_ids, random_ids(batch.size, 32, 6)}};
  p.fetches = {logits};
  add_grads(p, loss);
  p.layouts = {"vocab:a", "batch:a", "batch:a;vocab:b", "d_model:a;vocab:b", "vocab:a;d_model:b;batch:c"};
  return p;
}

TestProgram moe_dispatch_program(int batch_scale) {
  TestProgram p;
  p.name = "moe";
  p.graph = std::make_unique<Graph>(17);
  Graph& g = *p.graph;
  const Dimension group("group", 8 * batch_scale), position("position", 8), d_model("d_model", 8),
      gate_experts("gate_experts", 8), d_ff("d_ff", 16), capacity("capacity", 4);
  const Tensor tokens = g.input("x", {group, position, d_model});
  const Tensor w_gate = g.variable("w_gate", {d_model, gate_experts}, Initializer::normal(0.5f));
  const Tensor w_in = g.variable("w_in", {Dimension("experts", 8), d_model, d_ff}, Initializer::normal(0.3f));
  const Tensor w_out =
      g.variable("w_out", {Dimension("experts", 8), d_ff, d_model}, Initializer::normal(0.3f));
  const Tensor logits = einsum({tokens, w_gate}, Shape{group, position, gate_experts});
  const MoeDispatch dispatch = moe_dispatch(tokens, logits, "group", "gate_experts", "experts", capacity);
  const Shape hidden_shape = dispatch.expert_inputs.shape().minus({"d_model"}).union_with(Shape{d_ff});
  const Tensor hidden = relu(einsum({dispatch.expert_inputs, w_in}, hidden_shape));
  const Tensor expert_out = einsum({hidden, w_out}, dispatch.expert_inputs.shape());
  const Tensor out = moe_combine(dispatch, expert_out);
  const Tensor target = g.input("target", {group, position, d_model});
  const Tensor loss = reduce_mean(mul(out, target), Shape{}, "loss");
  p.feeds = {{tokens, random_values(group.size * position.size * d_model.size, 7)},
             {target, random_values(group.size * position.size * d_model.size, 8)}};
  p.fetches = {out};
  add_grads(p, loss);
  p.layouts = {"group:a;experts:a", "group:a;experts:a;d_ff:b", "d_ff:a", "group:b;experts:b;d_model:a",
               "group:a;experts:a;d_ff:b;d_model:c"};
  return p;
}

TestProgram norm_shift_concat(int batch_scale) {
  TestProgram p;
  p.name = "norm_shift_concat";
  p.graph = std::make_unique<Graph>(19);
  Graph& g = *p.graph;
  const Dimension batch("batch", 4 * batch_scale), length("length", 16), d("d", 8);
  const Tensor x = g.input("x", {batch, length, d});
  const Tensor gamma = g.variable("gamma", {d}, Initializer::constant(1.0f));
  const Tensor beta = g.variable("beta", {d}, Initializer::normal(0.1f));
  const Tensor w = g.variable("w", {d, Dimension("e", 8)}, Initializer::normal(0.3f));
  const Tensor normed = layer_norm(x, "d", gamma, beta);
  const Tensor left = shift(normed, "length", 1, false);
  const Tensor right = shift(normed, "length", -2, true);
  const Tensor mixed = add(gelu(left), tanh(right));
  const Tensor both = concat({mixed, x}, "d");  // d is unsplittable here
  const auto parts = split(both, "d", {4, 12});
  const Tensor proj = einsum({slice(both, "d", 0, 8), w}, Shape{batch, length, Dimension("e", 8)});
  const Tensor dropped = dropout(proj, 0.75, 3);
  const Tensor pooled = reduce_max(sigmoid(dropped), Shape{batch, Dimension("e", 8)});
  const Tensor loss = add(reduce_mean(exp(scale(pooled, 0.1)), Shape{}),
                          reduce_mean(mul(parts[0], parts[0]), Shape{}), "loss");
  p.feeds = {{x, random_values(batch.size * length.size * d.size, 9)}};
  p.fetches = {pooled};
  add_grads(p, loss);
  p.layouts = {"batch:a", "length:a", "batch:a;length:b", "e:a;length:b", "length:a;e:b;batch:c"};
  return p;
}

// A small image network: every window kind (conv with kernels 3 and 5, max and average pooling, the
// transposed conv that upsamples) and batch norm, so that splits of batch, h, w and channels each meet halos,
// partial sums over channels and statistics over split dims.
TestProgram conv_net(int batch_scale) {
  TestProgram p;
  p.name = "conv_net";
  p.graph = std::make_unique<Graph>(23);
  Graph& g = *p.graph;
  const Dimension batch("batch", 2 * batch_scale), h("h", 16), w("w", 8), ch("ch", 3), mid("mid", 8),
      out("out", 4), fin("fin", 8);
  const Tensor x = g.input("x", {batch, h, w, ch});
  const Tensor f1 =
      g.variable("f1", {Dimension("kh", 3), Dimension("kw", 3), ch, mid}, Initializer::normal(0.3f));
  const Tensor gamma = g.variable("gamma", {mid}, Initializer::constant(1.0f));
  const Tensor beta = g.variable("beta", {mid}, Initializer::normal(0.1f));
  const Tensor f2 =
      g.variable("f2", {Dimension("ku", 2), Dimension("kv", 2), out, mid}, Initializer::normal(0.3f));
  const Tensor f3 =
      g.variable("f3", {Dimension("kz", 5), Dimension("kzw", 5), out, fin}, Initializer::normal(0.2f));
  const Tensor normed = relu(batch_norm(conv(x, f1, {1, 1}, Padding::same), gamma, beta));
  const Tensor pooled = max_pool(normed, {3, 3}, {2, 2}, Padding::same);  // [batch, h:8, w:4, mid]
  const Tensor up = conv_transpose(pooled, f2, Shape{batch, h, w, out}, {2, 2}, Padding::same);
  const Tensor smooth = avg_pool(up, {3, 3}, {1, 1}, Padding::same);
  const Tensor z = conv(smooth, f3, {1, 1}, Padding::same);
  const Tensor loss = reduce_mean(square(z), Shape{}, "loss");
  p.feeds = {{x, random_values(batch.size * h.size * w.size * ch.size, 29)}};
  p.fetches = {pooled, z};
  add_grads(p, loss);
  p.layouts = {"batch:a",  "h:a",       "w:a",       "h:a;w:b",       "batch:a;h:b;w:c",
               "ch:a;h:b", "mid:a;h:b", "out:a;w:b", "fin:a;batch:b", "mid:a;w:b;batch:c"};
  return p;
}

LayoutRules rules_for(const std::string& layout, const MeshShape& mesh) {
  std::vector<std::pair<std::string, std::string>> kept;
  const LayoutRules all = LayoutRules::parse(layout);
  for (const auto& [tensor, mesh_dim] : all.rules()) {
    if (mesh.index_of(mesh_dim) >= 0) kept.emplace_back(tensor, mesh_dim);
  }
  return LayoutRules(kept);
}

std::vector<std::vector<float>> run_program(TestProgram& program, const MeshShape& mesh,
                                            const LayoutRules& rules, sim::Simulator* simulator) {
  Executor executor(*program.graph, mesh, rules, simulator);
  for (const auto& [input, values] : program.feeds) executor.feed(input, values);
  return executor.run(program.fetches).fetched;
}

double max_relative_error(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b,
                          double atol, double rtol) {
  double worst = a.size() == b.size() ? 0 : 1e30;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].size() != b[i].size()) return 1e30;
    for (std::size_t j = 0; j < a[i].size(); ++j) {
      const double err = std::abs(static_cast<double>(a[i][j]) - b[i][j]) / (atol + rtol * std::abs(b[i][j]));
      if (!(err <= worst)) worst = std::isnan(err) ? 1e30 : err;
    }
  }
  return worst;
}

}  // namespace tpusim::mtf::testing
