#include "mesh_tf/shape.hpp"

#include <fmt/format.h>

#include <limits>
#include <set>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

// "batch:8, io:16" and "batch:8;io:16" alike: ';' separates as ',' does, and spaces are ignored.
std::string without_spaces_and_semicolons(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ') out += c == ';' ? ',' : c;
  }
  return out;
}

}  // namespace

Shape::Shape(std::vector<Dimension> dims) : dims_(std::move(dims)) {
  std::set<std::string> seen;
  std::int64_t elements = 1;
  for (const auto& dim : dims_) {
    if (!seen.insert(dim.name).second) {
      throw InputError(fmt::format("shape {} names dimension '{}' twice; dimension names must be unique",
                                   to_string(), dim.name));
    }
    // Compared by division: the product itself could overflow.
    if (dim.size > std::numeric_limits<std::int64_t>::max() / elements) {
      throw InputError(fmt::format("shape {} has more elements than a 64-bit count holds", to_string()));
    }
    elements *= dim.size;
  }
}

Shape Shape::parse(const std::string& text) {
  if (text.empty() || text == "scalar") return Shape();
  std::vector<Dimension> dims;
  for (const auto& part : split(without_spaces_and_semicolons(text), ',')) {
    const auto colon = part.find(':');
    std::int64_t size = 0;
    std::size_t used = 0;
    if (colon != std::string::npos) {
      try {
        size = std::stoll(part.substr(colon + 1), &used);
      } catch (const std::exception&) {
        used = 0;
      }
    }
    if (colon == std::string::npos || used == 0 || used != part.size() - colon - 1) {
      throw InputError(fmt::format("shape '{}': '{}' is not name:size (e.g. 'batch:8,io:16')", text, part));
    }
    dims.emplace_back(part.substr(0, colon), size);
  }
  return Shape(std::move(dims));
}

std::int64_t Shape::num_elements() const {
  std::int64_t n = 1;
  for (const auto& dim : dims_) n *= dim.size;
  return n;
}

int Shape::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const Dimension& Shape::at(const std::string& name, const std::string& what) const {
  const int i = index_of(name);
  if (i < 0) {
    throw InputError(fmt::format("{} of shape {} has no dimension '{}'{}", what, to_string(), name,
                                 did_you_mean(name, names())));
  }
  return dims_[i];
}

std::vector<std::string> Shape::names() const {
  std::vector<std::string> out;
  for (const auto& dim : dims_) out.push_back(dim.name);
  return out;
}

Shape Shape::minus(const Shape& other) const { return minus(other.names()); }

Shape Shape::minus(const std::vector<std::string>& names) const {
  std::vector<Dimension> out;
  for (const auto& dim : dims_) {
    bool drop = false;
    for (const auto& name : names) drop = drop || name == dim.name;
    if (!drop) out.push_back(dim);
  }
  return Shape(std::move(out));
}

Shape Shape::union_with(const Shape& other) const {
  std::vector<Dimension> out = dims_;
  for (const auto& dim : other.dims_) {
    const int i = index_of(dim.name);
    if (i < 0) {
      out.push_back(dim);
    } else if (dims_[i].size != dim.size) {
      throw InputError(fmt::format("dimension '{}' has size {} in {} but {} in {}", dim.name, dims_[i].size,
                                   to_string(), dim.size, other.to_string()));
    }
  }
  return Shape(std::move(out));
}

bool Shape::is_subset_of(const Shape& other) const {
  for (const auto& dim : dims_) {
    const int i = other.index_of(dim.name);
    if (i < 0 || other.dims_[i].size != dim.size) return false;
  }
  return true;
}

std::string Shape::to_string() const {
  std::vector<std::string> parts;
  for (const auto& dim : dims_) parts.push_back(dim.to_string());
  return "[" + join(parts) + "]";
}

}  // namespace tpusim::mtf
