#include "topologies/topology.hpp"

#include <fmt/format.h>

#include "topologies/rank_mapping.hpp"
#include "topologies/support/check.hpp"
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
  std::vector<PhysicalAxis> axes{{"core", cores_per_chip_, 1}};
  int stride = cores_per_chip_;
  for (std::size_t d = 0; d < chip_dims_.size(); ++d) {
    axes.push_back({kChipAxisNames[d], chip_dims_[d], stride});
    stride *= chip_dims_[d];
  }
  if (multislice()) axes.push_back({"slice", slices_, stride});
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
  if (multislice()) return "multislice";
  if (chip_dims_.size() == 1) return wraparound_ ? "ring" : "line";
  return wraparound_ ? "torus" : "mesh";
}

std::string Topology::shape() const {
  std::vector<std::string> sizes;
  for (const int size : chip_dims_) sizes.push_back(std::to_string(size));
  std::vector<std::string> twists;
  for (const auto& twist : twists_) twists.push_back("twist_" + twist.text());
  return fmt::format("{}{} chips{} x {} core{}", multislice() ? fmt::format("{} slices x ", slices_) : "",
                     join(sizes, "x"), twists.empty() ? "" : " (" + join(twists, ", ") + ")", cores_per_chip_,
                     cores_per_chip_ == 1 ? "" : "s");
}

Topology Topology::with_links(LinkParams inter_chip, LinkParams intra_chip) const {
  Topology linked = *this;
  linked.inter_chip_ = inter_chip;
  linked.intra_chip_ = intra_chip;
  return linked;
}

bool Topology::has_link(int chip, int dimension) const {
  const int k = chip_dims_[dimension];
  if (k < 2) return false;
  int stride = 1;
  for (int d = 0; d < dimension; ++d) stride *= chip_dims_[d];
  return wraparound_ || (chip / stride) % k + 1 < k;
}

Topology Topology::as_multislice(std::string name, int slices, LinkParams dcn) const {
  if (multislice())
    throw InputError(fmt::format("topology '{}': its slice is already a multislice pod", name));
  if (slices < 2)
    throw InputError(fmt::format("topology '{}': a multislice pod has at least 2 slices", name));
  if (num_chips_ > kMaxChips / slices)
    throw InputError(fmt::format("topology '{}': more than {} chips", name, kMaxChips));
  // Routes between slices go over the DCN and within one over the regular torus: twisted wraparounds and
  // faults would need a route table spanning slices, which multislice pods do not model.
  if (twisted() || !faults_.text().empty()) {
    throw InputError(
        fmt::format("topology '{}': a multislice pod's slice cannot be twisted or have faults", name));
  }
  Topology pod = *this;
  pod.name_ = std::move(name);
  pod.slices_ = slices;
  pod.num_chips_ = num_chips_ * slices;
  pod.dcn_ = std::make_shared<const LinkParams>(dcn);
  return pod;
}

Topology Topology::one_slice() const {
  Topology slice = *this;
  slice.num_chips_ = chips_per_slice();
  slice.slices_ = 1;
  slice.dcn_.reset();
  return slice;
}

const LinkParams& Topology::dcn() const {
  TPUSIM_CHECK(dcn_ != nullptr);
  return *dcn_;
}

Topology Topology::with_faults(const std::string& text) const {
  if (multislice() && !text.empty())
    throw InputError(fmt::format("topology '{}': faults are not modelled on a multislice pod", name_));
  Topology faulty = *this;
  faulty.faults_ = Faults::parse(*this, text);
  faulty.build_route_table();
  return faulty;
}

Topology Topology::with_twists(std::vector<Twist> twists) const {
  if (multislice() && !twists.empty())
    throw InputError(fmt::format("topology '{}': twists are not modelled on a multislice pod", name_));
  check_twists(twists, chip_dims_, wraparound_, name_);
  Topology twisted = *this;
  twisted.twists_ = std::move(twists);
  twisted.faults_ = Faults::parse(twisted, faults_.text());
  twisted.build_route_table();
  return twisted;
}

void Topology::build_route_table() {
  route_table_.reset();
  if (faults_.any_down()) {
    route_table_ = std::make_shared<const RouteTable>(*this, "faults with links down");
  } else if (twisted()) {
    route_table_ = std::make_shared<const RouteTable>(*this, "twisted tori");
  }
}

int neighbour_chip(const Topology& topology, int chip, int hop) {
  const int d = hop / 2, k = topology.chip_dims()[d];
  if (k < 2) return -1;
  const bool up = hop % 2 == 0;
  auto coord = chip_coord(topology, chip);
  const bool wraps = up ? coord[d] == k - 1 : coord[d] == 0;
  coord[d] = (coord[d] + (up ? 1 : k - 1)) % k;
  for (const auto& twist : topology.twists()) {
    if (twist.dimension != d || !wraps) continue;
    const int n = topology.chip_dims()[twist.along];
    coord[twist.along] = (coord[twist.along] + (up ? twist.shift : n - twist.shift)) % n;
  }
  return chip_id(topology, coord);
}

}  // namespace tpusim::topo
