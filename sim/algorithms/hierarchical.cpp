// The hierarchical allreduce of multislice pods (topologies/multislice.hpp), as multislice training runs it
// (XLA's multislice collectives, Cloud TPU's multislice overview: "the reduction happens within the slice
// over ICI first, then across slices over DCN"): the group's members in each slice reduce-scatter over ICI
// with a bidirectional ring, the members that hold the same share in every slice allreduce it over the DCN
// with a unidirectional ring (one message in and one out of each chip's NIC at a time, so that the NIC is
// never shared), and each slice allgathers back over ICI. The DCN carries S/m per chip where m is the
// group's members per slice: the least any algorithm can (bounds.cpp's DCN term).
#include <map>

#include "sim/algorithms/algorithms.hpp"
#include "topologies/support/check.hpp"

namespace tpusim::sim::algorithms {
namespace {

// The group's members in each slice it spans, in group order, by slice.
std::vector<Line> hierarchical_slice_lines(const topo::Topology& topology, const topo::Group& group) {
  std::map<int, Line> by_slice;
  for (const Rank rank : group.ranks)
    by_slice[topology.slice_of_chip(rank / topology.cores_per_chip())].push_back(rank);
  std::vector<Line> lines;
  for (auto& [slice, line] : by_slice) lines.push_back(std::move(line));
  return lines;
}

}  // namespace

std::string hierarchical_fits(const topo::Group& group, const AlgorithmInput& input) {
  TPUSIM_CHECK(input.topology.multislice());  // the row's needs_multislice, checked first
  const auto lines = hierarchical_slice_lines(input.topology, group);
  if (lines.size() < 2) return "the group lies within one slice; it is for groups that span slices";
  for (const auto& line : lines) {
    if (line.size() != lines.front().size())
      return "the group's slices hold different numbers of its members; it needs the same number in each";
  }
  return "";
}

Schedule hierarchical_allreduce(const topo::Group& group, const AlgorithmInput& input) {
  const auto slices = hierarchical_slice_lines(input.topology, group);
  TPUSIM_CHECK(slices.size() >= 2);
  const std::size_t m = slices.front().size();
  const ElementRange range{0, input.request.elements};
  std::vector<ElementRange> owned{range};
  std::vector<Schedule> scatter, gather, across;
  if (m > 1) {
    for (const auto& line : slices) {
      scatter.push_back(bidir_ring_line.reduce_scatter(line, range, owned));
      gather.push_back(bidir_ring_line.allgather(line, owned));
    }
  }
  // Position i of every slice holds the same share (the same algorithm on lines of the same length).
  for (std::size_t i = 0; i < m; ++i) {
    Line line;
    for (const auto& slice : slices) line.push_back(slice[i]);
    across.push_back(ring_allreduce(line, owned[i]));
  }
  Schedule schedule = concurrently(std::move(scatter));
  schedule.then(concurrently(std::move(across)));
  schedule.then(concurrently(std::move(gather)));
  return schedule;
}

// bidir ring reduce-scatter and allgather over the m members of a slice (ICI, one hop apart) and a ring
// allreduce of S/m over the N slices (DCN):
//   2(m-1)a + (m-1)/m S/B  +  2(N-1)a_dcn + 2(N-1)/N (S/m)/B_dcn.
ClosedForm hierarchical_closed_form(const ClosedFormInput& input) {
  if (input.kind != CollectiveKind::allreduce || input.slices < 2) return {};
  const int p = input.members();
  if (p % input.slices != 0) return {};
  const int m = p / input.slices, n = input.slices;
  ClosedFormInput slice = input;
  slice.dims = {m};
  const double ici = bidir_ring_closed_form(slice).time_s;
  ClosedFormInput dcn = input;
  dcn.dims = {n};
  dcn.bytes = input.bytes / m;
  dcn.alpha = input.dcn_alpha;
  dcn.bandwidth = input.dcn_bandwidth;
  const double across = ring_closed_form(dcn).time_s;
  return {ici + across, "2(m-1)a + (m-1)/m S/B + 2(N-1)a_dcn + 2(N-1)/N (S/m)/B_dcn",
          2 * static_cast<std::uint64_t>(p)};
}

}  // namespace tpusim::sim::algorithms
