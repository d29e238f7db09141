#pragma once
// An independent reference for the engine's tests: named-dimension tensors in double precision and every op
// family written as plain loops over the full index space. It shares no code with mesh_tf's kernels, lowering
// or autodiff, so a bug that is the same on every layout still shows up as a difference from it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tpusim::mtf::reference {

struct Dim {
  std::string name;
  std::int64_t size;
};

// A dense tensor, row major in the order of `dims` (the last varies fastest).
struct Ref {
  std::vector<Dim> dims;
  std::vector<double> data;

  Ref() = default;
  explicit Ref(std::vector<Dim> dims, double fill = 0);
  std::int64_t elements() const;
  int index_of(const std::string& name) const;  // -1 when absent
  std::int64_t size_of(const std::string& name) const;
  // The element at named coordinates: `coords[k]` is the coordinate along `names[k]`; names this tensor lacks
  // are ignored (broadcasting).
  double at(const std::vector<std::string>& names, const std::vector<std::int64_t>& coords) const;
  double& at_mut(const std::vector<std::string>& names, const std::vector<std::int64_t>& coords);
};

// Calls `visit(coords)` for every coordinate vector of `sizes`, last fastest.
void for_each_index(const std::vector<std::int64_t>& sizes,
                    const std::function<void(const std::vector<std::int64_t>&)>& visit);
// The dims of `a` followed by those of `b` that `a` lacks.
std::vector<Dim> union_dims(const std::vector<Dim>& a, const std::vector<Dim>& b);

Ref einsum(const std::vector<Ref>& inputs, const std::vector<Dim>& out);
Ref transpose(const Ref& x, const std::vector<std::string>& order);
Ref elementwise(const std::vector<Ref>& inputs, const std::vector<Dim>& out,
                const std::function<double(const std::vector<double>&)>& f);
Ref map(const Ref& x, const std::function<double(double)>& f);
Ref reduce_max(const Ref& x, const std::vector<Dim>& out);
Ref reshape(const Ref& x, const std::vector<Dim>& out);  // same memory order, new dims
Ref shift(const Ref& x, const std::string& dim, std::int64_t offset, bool wrap);
Ref concat(const std::vector<Ref>& xs, const std::string& dim);  // by name, in the first input's order
Ref slice(const Ref& x, const std::string& dim, std::int64_t begin, std::int64_t size);
Ref pad(const Ref& x, const std::string& dim, std::int64_t before, std::int64_t after);
Ref one_hot(const Ref& ids, const Dim& dim, double on, double off);
Ref argmax_one_hot(const Ref& x, const std::string& dim);
Ref cumsum(const Ref& x, const std::string& dim, bool exclusive, bool reverse);
Ref softmax(const Ref& x, const std::string& dim);
Ref log_softmax(const Ref& x, const std::string& dim);
Ref layer_norm(const Ref& x, const std::string& dim, const Ref& scale, const Ref& bias, double epsilon);
double sum(const Ref& x);

}  // namespace tpusim::mtf::reference
