#pragma once
// A gnuplot of the test's own, first on PATH for the life of the object: a shell script run as `gnuplot
// <script>` in the folder it draws in, as tpusim runs the real one. The bodies below stand for what gnuplot
// may do: draw, fail, hang, or stop half-way through an image.
#include <filesystem>
#include <string>

namespace tpusim::test {

// Draws every `set output '<file>'` of the script as a whole image of about 64 KiB: a PNG (signature, IHDR,
// padding, IEND) or an SVG. Larger than the file size limit the disk-full tests set, so that it is cut
// short under it, as gnuplot's images are on a full disk.
extern const char* const kFakeGnuplotDraws;
// Fails as gnuplot fails on a bad script: a message on stderr, exit status 1.
extern const char* const kFakeGnuplotFails;
// Never exits: it waits on a `sleep` it started, both writing their pids to <folder()>/pids.
extern const char* const kFakeGnuplotHangs;
// Exits 0 after writing only the PNG signature to each output: images cut short.
extern const char* const kFakeGnuplotCutsShort;

class FakeGnuplot {
 public:
  explicit FakeGnuplot(const std::string& body);
  ~FakeGnuplot();
  FakeGnuplot(const FakeGnuplot&) = delete;
  FakeGnuplot& operator=(const FakeGnuplot&) = delete;
  // The folder holding the script (and what it writes of its own, such as pids).
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_;
  std::string saved_path_;
};

}  // namespace tpusim::test
