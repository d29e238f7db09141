#pragma once
// What a caller asks the simulator for: one collective over one or more disjoint groups that run at the same
// time and share the links. This header is the narrow interface between sim/ and the layers above; it has no
// SimGrid in it.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "topologies/group.hpp"
#include "topologies/support/name_table.hpp"

namespace tpusim::sim {

enum class CollectiveKind { allreduce, reduce_scatter, allgather, alltoall, broadcast, permute };
enum class ReduceOp { sum, max };
const NameTable<ReduceOp>& reduce_ops();  // sum, max

const char* to_string(CollectiveKind kind);
CollectiveKind parse_collective_kind(const std::string& name);  // InputError listing the valid names

// Data layout, for a group of p members and a buffer of `elements` per member, chunk i being the balanced
// slice [i*elements/p, (i+1)*elements/p) and "position" a member's index in group.ranks:
//   allreduce       every member's buffer becomes the element-wise reduction of all buffers
//   reduce_scatter  member i's chunk i becomes the reduction of everyone's chunk i (other chunks unspecified)
//   allgather       member i contributes its chunk i; every member ends with all chunks
//   alltoall        chunk j of member i ends as chunk i of member j
//   broadcast       every member ends with position 0's buffer
//   permute         the pairs (source rank, destination rank) each move the whole buffer; a rank that
//                   receives nothing ends with zeros
// One buffer of fp32 elements per member rank: a collective's real data, moved and reduced by its messages.
using Buffers = std::map<topo::Rank, std::vector<float>>;

struct AlgorithmRow;  // sim/algorithm_registry.hpp

// The name that stands for the fastest algorithm of the registry, chosen per request by simulation.
inline constexpr const char* kAutoAlgorithm = "auto";

// One place of a request's algorithm list: a row of the algorithm registry, resolved from its name once,
// where the name is read (resolve_algorithm in algorithm_registry.hpp), so that nothing further in looks the
// name up again; or auto (algorithm_choice.hpp), which the caller replaces by the fastest rows before the
// simulator runs the request.
class AlgorithmRef {
 public:
  static AlgorithmRef automatic() { return AlgorithmRef(); }
  explicit AlgorithmRef(const AlgorithmRow& row) : row_(&row) {}

  bool is_auto() const { return row_ == nullptr; }
  const AlgorithmRow& row() const;  // not auto (checked)
  const char* name() const;         // the row's name, or "auto"
  bool operator==(const AlgorithmRef& other) const { return row_ == other.row_; }
  bool operator!=(const AlgorithmRef& other) const { return row_ != other.row_; }

 private:
  AlgorithmRef() = default;
  const AlgorithmRow* row_ = nullptr;
};

// The names of `algorithms`, comma-separated ("bidir_ring,ring"): labels, keys and reports.
std::string algorithm_list(const std::vector<AlgorithmRef>& algorithms);

struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::allreduce;
  ReduceOp op = ReduceOp::sum;
  // One algorithm for the whole group (flattened in group order), or one per group dimension: then the
  // collective is composed dimension by dimension (reduce-scatter along the first ones, the innermost on 1/k
  // of the data, allgather back), each dimension with its own algorithm. Empty: the kind's default.
  std::vector<AlgorithmRef> algorithms;
  std::vector<topo::Group> groups;
  std::vector<std::pair<topo::Rank, topo::Rank>> permutation;  // permute only
  std::uint64_t elements = 0;                                  // per member, see above
  std::uint32_t element_bytes = 4;  // bytes on the wire per element (2 for bf16 even when data is fp32)
  // Optional real data: one buffer of `elements` floats per member rank, moved and reduced by the simulated
  // messages. Empty means timing only.
  Buffers* data = nullptr;
  std::string label;  // shown in traces and statistics
};

struct CollectiveResult {
  double time_s = 0;                   // from the start until the last member finishes
  std::uint64_t messages = 0;          // simulated transfers (folded repetitions counted)
  std::uint64_t bytes_per_member = 0;  // elements * element_bytes
  int group_size = 0;
  double algbw_Bps = 0;                  // bytes_per_member / time (nccl-tests)
  double busbw_Bps = 0;                  // algbw * the nccl-tests factor of the kind
  std::uint64_t simulated_messages = 0;  // transfers SimGrid really simulated (the others were folded)
  std::uint64_t folded_rounds = 0;       // rounds not simulated because they repeat a lone round exactly
};

}  // namespace tpusim::sim
