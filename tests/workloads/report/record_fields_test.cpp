// Records written and read through one field table (workloads/report/record_fields.hpp): the JSON against
// text written by hand, and back.
#include "workloads/report/record_fields.hpp"

#include <catch2/catch.hpp>
#include <limits>

#include "workloads/sweep/sweep_run.hpp"

namespace {

using tpusim::workloads::RecordFields;

struct Sample {
  double seconds = 0;
  std::optional<double> maybe;
  bool flag = false;
  int count = 0;
  std::int64_t signed_big = 0;
  std::uint64_t unsigned_big = 0;
  std::string text;
};

const RecordFields<Sample>& sample_fields() {
  static const RecordFields<Sample> fields = {{"seconds", &Sample::seconds},
                                              {"maybe", &Sample::maybe},
                                              {"flag", &Sample::flag},
                                              {"count", &Sample::count},
                                              {"signed_big", &Sample::signed_big},
                                              {"unsigned_big", &Sample::unsigned_big},
                                              {"text", &Sample::text}};
  return fields;
}

}  // namespace

TEST_CASE("a record's fields go to JSON under their names, an empty optional as null") {
  Sample s;
  s.seconds = 0.1;
  s.flag = true;
  s.count = -7;
  s.signed_big = -(std::int64_t{1} << 60);
  s.unsigned_big = std::numeric_limits<std::uint64_t>::max();
  s.text = "ring,bidir_ring";
  CHECK(tpusim::workloads::record_json(s, sample_fields()).dump() ==
        R"({"count":-7,"flag":true,"maybe":null,"seconds":0.1,"signed_big":-1152921504606846976,)"
        R"("text":"ring,bidir_ring","unsigned_big":18446744073709551615})");
  s.maybe = 2.5e-6;
  CHECK(tpusim::workloads::record_json(s, sample_fields(), {"text", "maybe"}).dump() ==
        R"({"maybe":2.5e-06,"text":"ring,bidir_ring"})");
}

TEST_CASE("a record read back from its JSON is the record, to the bit") {
  for (const bool with_optional : {false, true}) {
    Sample s;
    s.seconds = 1.0 / 3.0;
    if (with_optional) s.maybe = 6.02214076e23;
    s.count = 42;
    s.signed_big = -5;
    s.unsigned_big = std::uint64_t{1} << 63;
    s.text = "x";
    const auto json = nlohmann::json::parse(tpusim::workloads::record_json(s, sample_fields()).dump());
    const Sample back = tpusim::workloads::record_from_json(json, sample_fields());
    CHECK(back.seconds == s.seconds);
    CHECK(back.maybe == s.maybe);
    CHECK(back.flag == s.flag);
    CHECK(back.count == s.count);
    CHECK(back.signed_big == s.signed_big);
    CHECK(back.unsigned_big == s.unsigned_big);
    CHECK(back.text == s.text);
  }
  nlohmann::json missing = tpusim::workloads::record_json(Sample{}, sample_fields());
  missing.erase("count");
  CHECK_THROWS(tpusim::workloads::record_from_json(missing, sample_fields()));
}

TEST_CASE("a sweep point's summary is written and read through one table") {
  const auto json = nlohmann::json::parse(R"({"step_time_s":0.25,"compute_s":0.2,"communication_s":0.1,
      "exposed_communication_s":0.05,"idle_s":0,"model_flops_per_step":1e15,"mfu":0.5,"parameters":4900000000,
      "memory_per_core_bytes":8589934592,"hbm_per_core_bytes":17179869184,"fits":true,"collective_calls":183,
      "mesh_mapping":"batch=x;model=core+y","uncalibrated_step_time_s":0.24})");
  const tpusim::workloads::PointResult p = tpusim::workloads::parse_point_summary(json);
  CHECK(p.step_time_s == 0.25);
  CHECK(p.exposed_communication_s == 0.05);
  CHECK(p.parameters == 4900000000);
  CHECK(p.memory_per_core_bytes == 8589934592u);
  CHECK(p.fits);
  CHECK(p.collective_calls == 183);
  CHECK(p.mesh_mapping == "batch=x;model=core+y");
  CHECK(p.uncalibrated_step_time_s == 0.24);
  // Every key is a field, and every field a key: written back, it is the same object.
  CHECK(tpusim::workloads::record_json(p, tpusim::workloads::point_summary_fields()) == json);
}
