#include "tests/mesh_tf/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tpusim::mtf::reference {
namespace {

std::vector<std::int64_t> sizes_of(const std::vector<Dim>& dims) {
  std::vector<std::int64_t> sizes;
  for (const auto& d : dims) sizes.push_back(d.size);
  return sizes;
}

std::vector<std::string> names_of(const std::vector<Dim>& dims) {
  std::vector<std::string> names;
  for (const auto& d : dims) names.push_back(d.name);
  return names;
}

std::vector<Dim> with_size(std::vector<Dim> dims, const std::string& name, std::int64_t size) {
  for (auto& d : dims) {
    if (d.name == name) d.size = size;
  }
  return dims;
}

// Calls visit(index along `dim`, coords of the other dims) for every line of `x` along `dim`: the reference
// for the axis ops, written independently of any stride arithmetic.
void for_each_line(
    const Ref& x, const std::string& dim,
    const std::function<void(const std::vector<std::string>&, std::vector<std::int64_t>&)>& visit) {
  const auto names = names_of(x.dims);
  std::vector<std::int64_t> sizes = sizes_of(x.dims);
  sizes[x.index_of(dim)] = 1;
  for_each_index(sizes, [&](const std::vector<std::int64_t>& coords) {
    std::vector<std::int64_t> line = coords;
    visit(names, line);
  });
}

}  // namespace

Ref::Ref(std::vector<Dim> dims_in, double fill) : dims(std::move(dims_in)) {
  data.assign(static_cast<std::size_t>(elements()), fill);
}

std::int64_t Ref::elements() const {
  std::int64_t n = 1;
  for (const auto& d : dims) n *= d.size;
  return n;
}

int Ref::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::int64_t Ref::size_of(const std::string& name) const {
  const int i = index_of(name);
  if (i < 0) throw std::logic_error("reference: no dimension " + name);
  return dims[i].size;
}

double& Ref::at_mut(const std::vector<std::string>& names, const std::vector<std::int64_t>& coords) {
  std::int64_t offset = 0;
  for (const auto& d : dims) {
    const auto it = std::find(names.begin(), names.end(), d.name);
    if (it == names.end()) throw std::logic_error("reference: coordinates lack dimension " + d.name);
    offset = offset * d.size + coords[it - names.begin()];
  }
  return data[static_cast<std::size_t>(offset)];
}

double Ref::at(const std::vector<std::string>& names, const std::vector<std::int64_t>& coords) const {
  return const_cast<Ref*>(this)->at_mut(names, coords);
}

void for_each_index(const std::vector<std::int64_t>& sizes,
                    const std::function<void(const std::vector<std::int64_t>&)>& visit) {
  for (const auto s : sizes) {
    if (s <= 0) return;
  }
  std::vector<std::int64_t> coords(sizes.size(), 0);
  while (true) {
    visit(coords);
    int d = static_cast<int>(sizes.size()) - 1;
    while (d >= 0 && ++coords[d] == sizes[d]) coords[d--] = 0;
    if (d < 0) return;
  }
}

std::vector<Dim> union_dims(const std::vector<Dim>& a, const std::vector<Dim>& b) {
  std::vector<Dim> out = a;
  for (const auto& d : b) {
    if (std::none_of(a.begin(), a.end(), [&](const Dim& e) { return e.name == d.name; })) out.push_back(d);
  }
  return out;
}

Ref einsum(const std::vector<Ref>& inputs, const std::vector<Dim>& out_dims) {
  std::vector<Dim> space = out_dims;
  for (const auto& in : inputs) space = union_dims(space, in.dims);
  const auto names = names_of(space);
  Ref out(out_dims);
  for_each_index(sizes_of(space), [&](const std::vector<std::int64_t>& coords) {
    double product = 1;
    for (const auto& in : inputs) product *= in.at(names, coords);
    out.at_mut(names, coords) += product;
  });
  return out;
}

Ref transpose(const Ref& x, const std::vector<std::string>& order) {
  std::vector<Dim> dims;
  for (const auto& name : order) dims.push_back({name, x.size_of(name)});
  return einsum({x}, dims);
}

Ref elementwise(const std::vector<Ref>& inputs, const std::vector<Dim>& out_dims,
                const std::function<double(const std::vector<double>&)>& f) {
  const auto names = names_of(out_dims);
  Ref out(out_dims);
  std::vector<double> args(inputs.size());
  for_each_index(sizes_of(out_dims), [&](const std::vector<std::int64_t>& coords) {
    for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i].at(names, coords);
    out.at_mut(names, coords) = f(args);
  });
  return out;
}

Ref map(const Ref& x, const std::function<double(double)>& f) {
  Ref out = x;
  for (auto& v : out.data) v = f(v);
  return out;
}

Ref reduce_max(const Ref& x, const std::vector<Dim>& out_dims) {
  const auto names = names_of(x.dims);
  Ref out(out_dims, -INFINITY);
  for_each_index(sizes_of(x.dims), [&](const std::vector<std::int64_t>& coords) {
    double& slot = out.at_mut(names, coords);
    slot = std::max(slot, x.at(names, coords));
  });
  return out;
}

Ref reshape(const Ref& x, const std::vector<Dim>& out_dims) {
  Ref out(out_dims);
  if (out.elements() != x.elements()) throw std::logic_error("reference: reshape changes the element count");
  out.data = x.data;
  return out;
}

Ref shift(const Ref& x, const std::string& dim, std::int64_t offset, bool wrap) {
  Ref out(x.dims);
  const std::int64_t n = x.size_of(dim);
  const int d = x.index_of(dim);
  for_each_line(x, dim, [&](const std::vector<std::string>& names, std::vector<std::int64_t>& coords) {
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t from = i - offset;
      if (wrap) from = ((from % n) + n) % n;
      coords[d] = i;
      double& dst = out.at_mut(names, coords);
      if (from < 0 || from >= n) continue;
      coords[d] = from;
      dst = x.at(names, coords);
    }
  });
  return out;
}

Ref concat(const std::vector<Ref>& xs, const std::string& dim) {
  std::int64_t total = 0;
  for (const auto& x : xs) total += x.size_of(dim);
  Ref out(with_size(xs[0].dims, dim, total));
  const auto names = names_of(out.dims);
  const int d = out.index_of(dim);
  for_each_index(sizes_of(out.dims), [&](const std::vector<std::int64_t>& coords) {
    std::int64_t at = coords[d];
    for (const auto& x : xs) {
      if (at < x.size_of(dim)) {
        std::vector<std::int64_t> local = coords;
        local[d] = at;
        out.at_mut(names, coords) = x.at(names, local);
        return;
      }
      at -= x.size_of(dim);
    }
  });
  return out;
}

Ref slice(const Ref& x, const std::string& dim, std::int64_t begin, std::int64_t size) {
  Ref out(with_size(x.dims, dim, size));
  const auto names = names_of(out.dims);
  const int d = out.index_of(dim);
  for_each_index(sizes_of(out.dims), [&](const std::vector<std::int64_t>& coords) {
    std::vector<std::int64_t> from = coords;
    from[d] += begin;
    out.at_mut(names, coords) = x.at(names, from);
  });
  return out;
}

Ref pad(const Ref& x, const std::string& dim, std::int64_t before, std::int64_t after) {
  Ref out(with_size(x.dims, dim, x.size_of(dim) + before + after));
  const auto names = names_of(x.dims);
  const int d = x.index_of(dim);
  for_each_index(sizes_of(x.dims), [&](const std::vector<std::int64_t>& coords) {
    std::vector<std::int64_t> to = coords;
    to[d] += before;
    out.at_mut(names, to) = x.at(names, coords);
  });
  return out;
}

Ref one_hot(const Ref& ids, const Dim& dim, double on, double off) {
  std::vector<Dim> dims = ids.dims;
  dims.push_back(dim);
  Ref out(dims);
  const auto names = names_of(dims);
  for_each_index(sizes_of(dims), [&](const std::vector<std::int64_t>& coords) {
    out.at_mut(names, coords) = std::llround(ids.at(names, coords)) == coords.back() ? on : off;
  });
  return out;
}

Ref argmax_one_hot(const Ref& x, const std::string& dim) {
  Ref out(x.dims);
  const std::int64_t n = x.size_of(dim);
  const int d = x.index_of(dim);
  for_each_line(x, dim, [&](const std::vector<std::string>& names, std::vector<std::int64_t>& coords) {
    std::int64_t best = 0;
    double best_value = -INFINITY;
    for (std::int64_t i = 0; i < n; ++i) {
      coords[d] = i;
      if (x.at(names, coords) > best_value) {
        best_value = x.at(names, coords);
        best = i;
      }
    }
    coords[d] = best;
    out.at_mut(names, coords) = 1;
  });
  return out;
}

Ref cumsum(const Ref& x, const std::string& dim, bool exclusive, bool reverse) {
  Ref out(x.dims);
  const std::int64_t n = x.size_of(dim);
  const int d = x.index_of(dim);
  for_each_line(x, dim, [&](const std::vector<std::string>& names, std::vector<std::int64_t>& coords) {
    for (std::int64_t i = 0; i < n; ++i) {
      double total = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const bool before = reverse ? j > i : j < i;
        if (before || (j == i && !exclusive)) {
          coords[d] = j;
          total += x.at(names, coords);
        }
      }
      coords[d] = i;
      out.at_mut(names, coords) = total;
    }
  });
  return out;
}

Ref softmax(const Ref& x, const std::string& dim) {
  Ref out(x.dims);
  const std::int64_t n = x.size_of(dim);
  const int d = x.index_of(dim);
  for_each_line(x, dim, [&](const std::vector<std::string>& names, std::vector<std::int64_t>& coords) {
    double total = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      coords[d] = i;
      total += std::exp(x.at(names, coords));
    }
    for (std::int64_t i = 0; i < n; ++i) {
      coords[d] = i;
      out.at_mut(names, coords) = std::exp(x.at(names, coords)) / total;
    }
  });
  return out;
}

Ref log_softmax(const Ref& x, const std::string& dim) {
  return map(softmax(x, dim), [](double v) { return std::log(v); });
}

Ref layer_norm(const Ref& x, const std::string& dim, const Ref& scale, const Ref& bias, double epsilon) {
  Ref out(x.dims);
  const std::int64_t n = x.size_of(dim);
  const int d = x.index_of(dim);
  for_each_line(x, dim, [&](const std::vector<std::string>& names, std::vector<std::int64_t>& coords) {
    double mean = 0, variance = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      coords[d] = i;
      mean += x.at(names, coords) / static_cast<double>(n);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      coords[d] = i;
      variance += std::pow(x.at(names, coords) - mean, 2) / static_cast<double>(n);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      coords[d] = i;
      out.at_mut(names, coords) =
          (x.at(names, coords) - mean) / std::sqrt(variance + epsilon) * scale.data[i] + bias.data[i];
    }
  });
  return out;
}

double sum(const Ref& x) {
  double total = 0;
  for (const double v : x.data) total += v;
  return total;
}

}  // namespace tpusim::mtf::reference
