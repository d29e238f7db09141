#include "workloads/config/transformer_choices.hpp"

namespace tpusim::workloads {

const NameTable<FeedForwardKind>& feed_forward_kinds() {
  static const NameTable<FeedForwardKind> table(
      "feed-forward kind",
      {{"relu", FeedForwardKind::relu}, {"gelu", FeedForwardKind::gelu}, {"swiglu", FeedForwardKind::swiglu}});
  return table;
}

const NameTable<NormKind>& norm_kinds() {
  static const NameTable<NormKind> table("norm kind",
                                         {{"layer_norm", NormKind::layer_norm}, {"rms_norm", NormKind::rms_norm}});
  return table;
}

const NameTable<PositionKind>& position_kinds() {
  static const NameTable<PositionKind> table("position kind",
                                             {{"learned", PositionKind::learned}, {"rotary", PositionKind::rotary}});
  return table;
}

const NameTable<AttentionKind>& attention_kinds() {
  static const NameTable<AttentionKind> table("attention kind",
                                              {{"dense", AttentionKind::dense}, {"flash", AttentionKind::flash}});
  return table;
}

}  // namespace tpusim::workloads
