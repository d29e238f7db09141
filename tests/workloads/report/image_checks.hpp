#pragma once
// Checks that a drawn plot is a real image, without an image library: a PNG's signature and IHDR chunk, and
// an SVG that is well-formed XML with an <svg> root element.
#include <filesystem>
#include <string>

namespace tpusim::test {

// "" when `path` is a PNG (the 8-byte signature, then an IHDR chunk of non-zero width and height), else
// what is wrong with it.
std::string png_problem(const std::filesystem::path& path);

// "" when `path` parses as XML (every element closed in order, comments, CDATA, processing instructions and
// the DOCTYPE skipped) with one root element named svg, else what is wrong with it.
std::string svg_problem(const std::filesystem::path& path);

// Whether gnuplot is on PATH: the tests that need images skip, saying so, without it.
bool have_gnuplot();

// PATH without gnuplot for the life of the object, as on a machine that lacks it.
class NoGnuplot {
 public:
  NoGnuplot();
  ~NoGnuplot();
  NoGnuplot(const NoGnuplot&) = delete;
  NoGnuplot& operator=(const NoGnuplot&) = delete;

 private:
  std::string saved_path_;
};

}  // namespace tpusim::test
