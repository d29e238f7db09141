#pragma once
// Global layout rules: tensor-dimension name -> mesh-dimension name, e.g. "batch:rows;hidden:cols". Every
// tensor with a dimension called `hidden` splits it over `cols`, so elementwise ops never communicate.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mesh_tf/mesh_shape.hpp"

namespace tpusim::mtf {

class LayoutRules {
 public:
  LayoutRules() = default;
  // Throws InputError on an empty name or a tensor dimension given twice.
  explicit LayoutRules(std::vector<std::pair<std::string, std::string>> rules);
  // "batch:rows;hidden:cols" (';' or ','), "" = no splitting.
  static LayoutRules parse(const std::string& text);

  // The mesh dimension that `tensor_dim` is split over, if any.
  std::optional<std::string> mesh_dim_for(const std::string& tensor_dim) const;
  const std::vector<std::pair<std::string, std::string>>& rules() const { return rules_; }
  // InputError when a rule names a mesh dimension the mesh lacks ("layout rule 'hidden:colz': mesh
  // rows:2;cols:4 has no dimension 'colz' (did you mean 'cols'?)").
  void check_against(const MeshShape& mesh) const;
  std::string to_string() const;

 private:
  std::vector<std::pair<std::string, std::string>> rules_;
};

}  // namespace tpusim::mtf
