#include "mesh_tf/allreduce_combiner.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "topologies/support/check.hpp"

namespace tpusim::mtf {
namespace {

// Sums whose single issued collective is an allreduce of the same sum: what can be concatenated.
bool combinable(const Step& step) {
  return step.is_comm && step.collective == CollectiveOp::allreduce &&
         step.record.reduce == sim::ReduceOp::sum && step.record.issued.size() == 1 &&
         step.record.issued.front().kind == sim::CollectiveKind::allreduce &&
         step.record.issued.front().reduce == sim::ReduceOp::sum;
}

using Key = std::tuple<std::vector<int>, std::uint32_t>;  // issued mesh dims, element bytes

struct Bucket {
  std::vector<int> members;
  std::uint64_t bytes = 0;
  int first_step = -1;     // the earliest member, where the combined collective runs
  int last_producer = -1;  // the latest step producing a member's input
};

}  // namespace

std::string collective_signature(const Step& step) {
  const CollectiveRecord& r = step.record;
  return fmt::format("{}/{}/{}/{}/{}/{}/{}", sim::to_string(r.kind), r.reduce == sim::ReduceOp::max,
                     fmt::join(r.mesh_dims, ","), r.elements_per_core, r.element_bytes, step.shift_offset > 0,
                     step.shift_wrap);
}

void combine_allreduces(Program& program, std::uint64_t threshold_bytes) {
  if (threshold_bytes == 0) return;
  // Candidates by key, in the order their inputs become ready, so that a bucket holds sums that could start
  // at about the same time.
  std::map<Key, std::vector<int>> candidates;
  auto producer = [&](int step) { return program.values[program.steps[step].inputs.front()].producer_step; };
  for (int i = 0; i < static_cast<int>(program.steps.size()); ++i) {
    const Step& step = program.steps[i];
    if (combinable(step))
      candidates[Key{step.record.issued.front().mesh_dims, step.record.issued.front().element_bytes}]
          .push_back(i);
  }
  std::vector<std::vector<int>> groups;
  for (auto& [key, steps] : candidates) {
    std::stable_sort(steps.begin(), steps.end(), [&](int a, int b) { return producer(a) < producer(b); });
    Bucket bucket;
    auto close = [&] {
      if (bucket.members.size() > 1) {
        std::sort(bucket.members.begin(), bucket.members.end());
        groups.push_back(bucket.members);
      }
      bucket = Bucket{};
    };
    for (const int i : steps) {
      const IssuedCollective& issued = program.steps[i].record.issued.front();
      const std::uint64_t bytes = issued.elements_per_core * issued.element_bytes;
      // The combined collective runs at the earliest member, so every member's input must be ready there.
      const int first = bucket.members.empty() ? i : std::min(bucket.first_step, i);
      const int last_producer = std::max(bucket.last_producer, producer(i));
      if (!bucket.members.empty() && (bucket.bytes + bytes > threshold_bytes || last_producer >= first))
        close();
      if (bytes > threshold_bytes) continue;  // alone, as issued
      bucket.first_step = bucket.members.empty() ? i : std::min(bucket.first_step, i);
      bucket.last_producer = std::max(bucket.last_producer, producer(i));
      if (bucket.last_producer >= bucket.first_step) {  // its own input comes later than itself: impossible
        bucket = Bucket{};
        continue;
      }
      bucket.members.push_back(i);
      bucket.bytes += bytes;
    }
    close();
  }

  for (const auto& members : groups) {
    const int first = members.front();
    Step& combined = program.steps[first];
    std::uint64_t elements = 0;
    for (const int m : members) elements += program.steps[m].record.issued.front().elements_per_core;
    for (const int m : members) {
      if (m == first) continue;
      Step& member = program.steps[m];
      TPUSIM_CHECK(member.record.issued.front().element_bytes ==
                   combined.record.issued.front().element_bytes);
      member.combined_into = first;
      combined.inputs.push_back(member.inputs.front());
      member.inputs.push_back(combined.output);  // it ends when the combined collective does
    }
    combined.combined_steps = members;
    combined.record.issued.front().elements_per_core = elements;
    combined.record.elements_per_core = elements;
    combined.record.bytes_per_core = elements * combined.record.issued.front().element_bytes;
    combined.label += fmt::format(" (+{} combined)", members.size() - 1);
    combined.signature = collective_signature(combined);
  }
}

}  // namespace tpusim::mtf
