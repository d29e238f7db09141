#pragma once
// sweep.json documents to draw from, written by the tests in the layouts tpusim sweep writes (a training
// sweep, tpusim.sweep.v1, and a collective study, tpusim.collective_sweep.v1), and a temporary folder to
// hold them.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tpusim::test {

// A training sweep over mesh.mapping (rings, linear) x hardware.topology (8, 32, 128 cores): point 4
// (linear, 32 cores) does not fit its HBM and point 5 (linear, 128 cores) failed.
nlohmann::json training_sweep_fixture();
// The same sweep's shape on one core count: mesh.shape x mesh.mapping on 32 cores, all fitting.
nlohmann::json same_cores_sweep_fixture();
// Strong and weak scaling in one training sweep: model.batch (128, {per: batch, value: 8}) x
// hardware.topology (8, 32, 128 cores), every point fitting, with the scaling block tpusim sweep writes: the
// strong series' speedups 1, 2.5 and 4, the weak series' efficiencies 1, 0.95 and 0.8.
nlohmann::json scaling_sweep_fixture();
// `document` (a fixture) with these varied keys and, per run in order, these values: the runs beyond them
// are dropped, and sweep.vary lists each key's values in order of first use.
nlohmann::json with_values(nlohmann::json document, const std::vector<std::string>& keys,
                           const std::vector<std::vector<std::string>>& values);
// A collective study varying collective.op (allreduce, allgather), hardware.topology (ring-8, torus-8x8),
// collective.algorithm (ring, bidir_ring) and collective.bytes (1 KiB to 1 MiB by 4): ring is best up to
// 64 KiB, bidir_ring from 256 KiB.
nlohmann::json collective_sweep_fixture();

// A sweep.json that tpusim plot must refuse, what is wrong with it, and the message it must give after
// "<folder>/sweep.json" (the whole message, or its start where the JSON parser's words follow).
struct MalformedSweep {
  std::string what;
  std::string text;     // the file's content
  std::string message;  // e.g. ": runs[0].mfu: expected a number of at least 0, not -0.5"
  bool message_is_prefix = false;
};
// One of each kind of fault: not JSON, another format, a missing key, a wrong type, a value out of range,
// runs that do not match the sweep's header, counts that contradict each other.
std::vector<MalformedSweep> malformed_sweeps();

// A fresh folder under the temporary directory, removed with everything in it when destroyed.
class TempFolder {
 public:
  TempFolder();
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `document` as <path>/<name>/sweep.json and returns that folder.
  std::string sweep_folder(const std::string& name, const nlohmann::json& document) const;

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::filesystem::path& path);

// Every file under a sweep's `folder` but its sweep.json (what drawing writes: report.md, plots/...), by
// path relative to it, with its bytes: what must stay byte for byte when a drawing is refused.
std::map<std::string, std::string> files_beside_sweep_json(const std::filesystem::path& folder);

}  // namespace tpusim::test
