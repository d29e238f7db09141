#pragma once
// Which physical cores the logical mesh processors run on, as chosen by the user (mesh_mapping.hpp applies
// it to a mesh and a topology):
//   rings                 the default: each mesh dimension on physically connected rings, as Mesh-TensorFlow
//                         did on TPU pods: on whole physical axes where the sizes allow (batch:16;model:32 on
//                         tpu-v2-pod gives model = core+x, batch = y), else on Mesh-TensorFlow's tiles of a
//                         2D pod (tpu_tiling.hpp), else linear
//   linear                processor i is rank i (topologies/rank_mapping.hpp order), whatever the axes.
//                         The last mesh dim varies fastest and ranks vary core then x fastest, so on
//                         tpu-v2-pod batch:16;model:32 walks model over core then x and batch over y (the
//                         rings' axes without the snake walk), while model:32;batch:16 splits x in two.
//   model=core+x;batch=y  explicit: per mesh dimension the physical axes it spans, fastest first, walked in
//                         snake order. Checked against the mesh and topology by MeshMapping: every mesh
//                         dimension of size > 1 assigned, axes that exist and are used once, and axis sizes
//                         whose product is the mesh dimension's size.
#include <string>
#include <utility>
#include <vector>

namespace tpusim::mtf {

class MappingSpec {
 public:
  enum class Kind { rings, linear, axes };
  using Assignment = std::vector<std::pair<std::string, std::vector<std::string>>>;  // dim -> axes

  MappingSpec() = default;  // rings
  static MappingSpec rings() { return {}; }
  static MappingSpec linear();
  static MappingSpec axes(Assignment assignment);  // InputError on repeated dims or axes, empty parts
  // "rings", "linear" or "dim=axis+axis;dim=axis". InputError naming the text, the rule and the valid forms.
  static MappingSpec parse(const std::string& text);

  Kind kind() const { return kind_; }
  const Assignment& assignment() const { return assignment_; }  // Kind::axes only
  std::string to_string() const;                                // parse(to_string()) round-trips
  static const char* valid_forms();  // "rings, linear, or an assignment such as model=core+x;batch=y"

 private:
  Kind kind_ = Kind::rings;
  Assignment assignment_;
};

}  // namespace tpusim::mtf
