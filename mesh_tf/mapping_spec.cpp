#include "mesh_tf/mapping_spec.hpp"

#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {
namespace {

bool is_name(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string assignment_text(const MappingSpec::Assignment& assignment) {
  std::vector<std::string> rules;
  for (const auto& [dim, axes] : assignment) rules.push_back(dim + "=" + join(axes, "+"));
  return join(rules, ";");
}

}  // namespace

const char* MappingSpec::valid_forms() {
  return "rings (each mesh dimension on physical rings), linear (processor i is core i), or physical axes "
         "per "
         "mesh dimension such as model=core+x;batch=y";
}

MappingSpec MappingSpec::linear() {
  MappingSpec spec;
  spec.kind_ = Kind::linear;
  return spec;
}

MappingSpec MappingSpec::axes(Assignment assignment) {
  const std::string text = assignment_text(assignment);
  if (assignment.empty()) throw InputError(fmt::format("mesh mapping is empty; valid: {}", valid_forms()));
  std::vector<std::string> dims, used;
  for (const auto& [dim, axes] : assignment) {
    const std::string rule = dim + "=" + join(axes, "+");
    if (!is_name(dim) || axes.empty()) {
      throw InputError(fmt::format("mesh mapping '{}': rule '{}' is not mesh-dim=axis+axis; valid: {}", text,
                                   rule, valid_forms()));
    }
    for (const auto& axis : axes) {
      if (!is_name(axis)) {
        throw InputError(fmt::format("mesh mapping '{}': rule '{}' names an empty or malformed axis '{}'",
                                     text, rule, axis));
      }
      for (const auto& earlier : used) {
        if (earlier == axis) {
          throw InputError(fmt::format(
              "mesh mapping '{}': physical axis '{}' is used twice (again in rule '{}'); each axis may "
              "belong to one mesh dimension",
              text, axis, rule));
        }
      }
      used.push_back(axis);
    }
    for (const auto& earlier : dims) {
      if (earlier == dim) {
        throw InputError(fmt::format("mesh mapping '{}': mesh dimension '{}' is assigned twice (rule '{}')",
                                     text, dim, rule));
      }
    }
    dims.push_back(dim);
  }
  MappingSpec spec;
  spec.kind_ = Kind::axes;
  spec.assignment_ = std::move(assignment);
  return spec;
}

MappingSpec MappingSpec::parse(const std::string& text) {
  if (text == "rings") return rings();
  if (text == "linear") return linear();
  if (text.find('=') == std::string::npos) {
    throw InputError(fmt::format("'{}' is not a mesh mapping{}; valid: {}", text,
                                 did_you_mean(text, {"rings", "linear"}), valid_forms()));
  }
  Assignment assignment;
  for (const auto& rule : tpusim::split(text, ';')) {
    const auto equals = rule.find('=');
    if (equals == std::string::npos || rule.find('=', equals + 1) != std::string::npos) {
      throw InputError(fmt::format("mesh mapping '{}': rule '{}' is not mesh-dim=axis+axis; valid: {}", text,
                                   rule, valid_forms()));
    }
    const std::string axes = rule.substr(equals + 1);
    assignment.emplace_back(rule.substr(0, equals),
                            axes.empty() ? std::vector<std::string>{} : tpusim::split(axes, '+'));
  }
  return axes(std::move(assignment));
}

std::string MappingSpec::to_string() const {
  switch (kind_) {
    case Kind::rings:
      return "rings";
    case Kind::linear:
      return "linear";
    case Kind::axes:
      return assignment_text(assignment_);
  }
  return "rings";
}

}  // namespace tpusim::mtf
