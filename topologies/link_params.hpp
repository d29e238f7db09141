#pragma once
#include <string>

namespace tpusim::topo {

// One direction of a link: links are full duplex, each direction has this bandwidth and latency.
class LinkParams {
 public:
  LinkParams(double bandwidth_Bps,
             double latency_s);  // throws InputError on non-positive bandwidth, negative latency
  double bandwidth_Bps() const { return bandwidth_Bps_; }
  double latency_s() const { return latency_s_; }
  std::string describe() const;  // "62 GB/s, 1 us"

 private:
  double bandwidth_Bps_;
  double latency_s_;
};

}  // namespace tpusim::topo
