#include "topologies/topology.hpp"

#include <fmt/format.h>

#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::topo {

Topology::Topology(std::string name, std::vector<int> chip_dims, bool wraparound, int cores_per_chip,
                   LinkParams inter_chip, LinkParams intra_chip)
    : name_(std::move(name)),
      chip_dims_(std::move(chip_dims)),
      wraparound_(wraparound),
      cores_per_chip_(cores_per_chip),
      num_chips_(1),
      inter_chip_(inter_chip),
      intra_chip_(intra_chip) {
  if (chip_dims_.empty() || chip_dims_.size() > 3) {
    throw InputError(
        fmt::format("topology '{}': expected 1 to 3 chip dimensions, got {}", name_, chip_dims_.size()));
  }
  for (const int size : chip_dims_) {
    if (size < 1)
      throw InputError(fmt::format("topology '{}': dimension size {} must be at least 1", name_, size));
    if (num_chips_ > kMaxChips / size) {
      throw InputError(fmt::format("topology '{}': more than {} chips", name_, kMaxChips));
    }
    num_chips_ *= size;
  }
  if (cores_per_chip_ < 1 || cores_per_chip_ > kMaxCoresPerChip) {
    throw InputError(fmt::format("topology '{}': cores per chip must be 1 to {}, got {}", name_,
                                 kMaxCoresPerChip, cores_per_chip_));
  }
}

std::vector<PhysicalAxis> Topology::axes() const {
  static const char* names[] = {"x", "y", "z"};
  std::vector<PhysicalAxis> axes{{"core", cores_per_chip_, 1}};
  int stride = cores_per_chip_;
  for (std::size_t d = 0; d < chip_dims_.size(); ++d) {
    axes.push_back({names[d], chip_dims_[d], stride});
    stride *= chip_dims_[d];
  }
  return axes;
}

int Topology::axis_index(const std::string& name) const {
  const auto all = axes();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) return static_cast<int>(i);
    names.push_back(all[i].name);
  }
  throw InputError(fmt::format("unknown axis '{}' for topology '{}'{}; valid axes are {}", name, name_,
                               did_you_mean(name, names), join(names)));
}

std::string Topology::kind() const {
  if (chip_dims_.size() == 1) return wraparound_ ? "ring" : "line";
  return wraparound_ ? "torus" : "mesh";
}

std::string Topology::shape() const {
  std::vector<std::string> sizes;
  for (const int size : chip_dims_) sizes.push_back(std::to_string(size));
  return fmt::format("{} chips x {} core{}", join(sizes, "x"), cores_per_chip_,
                     cores_per_chip_ == 1 ? "" : "s");
}

Topology Topology::with_links(LinkParams inter_chip, LinkParams intra_chip) const {
  Topology linked(name_, chip_dims_, wraparound_, cores_per_chip_, inter_chip, intra_chip);
  linked.faults_ = faults_;
  return linked;
}

bool Topology::has_link(int chip, int dimension) const {
  const int k = chip_dims_[dimension];
  if (k < 2) return false;
  int stride = 1;
  for (int d = 0; d < dimension; ++d) stride *= chip_dims_[d];
  return wraparound_ || (chip / stride) % k + 1 < k;
}

Topology Topology::with_faults(const std::string& text) const {
  Topology faulty = *this;
  faulty.faults_ = Faults::parse(*this, text);
  return faulty;
}

}  // namespace tpusim::topo
