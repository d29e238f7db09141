#pragma once
// sweep.json documents to draw from, written by the tests in the layout tpusim sweep writes (a training
// sweep) and in the row layout of collective studies, and a temporary folder to hold them.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace tpusim::test {

// A training sweep over mesh.mapping (rings, linear) x hardware.topology (8, 32, 128 cores): point 4
// (linear, 32 cores) does not fit its HBM and point 5 (linear, 128 cores) failed.
nlohmann::json training_sweep_fixture();
// The same sweep's shape on one core count: mesh.shape x mesh.mapping on 32 cores, all fitting.
nlohmann::json same_cores_sweep_fixture();
// A collective study: allreduce and allgather, algorithms ring and bidir_ring, on ring-8 and torus-8x8,
// sizes 1 KiB to 1 MiB by 4: ring is best up to 64 KiB, bidir_ring from 256 KiB.
nlohmann::json collective_sweep_fixture();

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

}  // namespace tpusim::test
